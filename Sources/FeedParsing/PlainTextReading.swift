extension PlainText {
    /// HTML read as text: the text, and the first picture the markup names.
    public struct Reading: Sendable, Equatable {
        /// Plain text (see ``PlainText/read(html:limit:oneLine:)``).
        public var text: String
        /// The `src` of the first `<img>`, as written (maybe relative), if any.
        public var firstImage: String?

        /// Creates a reading.
        public init(text: String, firstImage: String? = nil) {
            self.text = text
            self.firstImage = firstImage
        }
    }
}
