/// What a person asked to subscribe to.
public struct SubscribeRequest: Sendable, Equatable {
    /// What they pasted or shared: a feed's or a site's address (a bare `example.com` means
    /// `https://example.com/`).
    public var address: String
    /// Their title for it, nil for the feed's own.
    public var title: String?
    /// The folder to put it in, nil for none.
    public var folder: String?

    /// Creates a request.
    public init(address: String, title: String? = nil, folder: String? = nil) {
        self.address = address
        self.title = title
        self.folder = folder
    }
}
