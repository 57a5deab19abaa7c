public import Foundation

/// One item as a feed has it, before the store sees it: the date may be missing.
public struct UpstreamEntry: Sendable, Equatable {
    /// The feed's id for it (GUID, Atom id, JSON Feed id, else its link), 1–256 characters.
    public var id: String
    /// Plain text, trimmed, 1–500 characters.
    public var title: String
    /// Plain text, trimmed, at most 10,000 characters.
    public var body: String
    /// Its absolute http(s) link, when it has a usable one.
    public var url: String?
    /// Its picture's absolute http(s) URL, when it names one.
    public var image: String?
    /// When it was published or updated, if the feed says.
    public var date: Date?

    /// Creates an entry.
    public init(id: String, title: String, body: String, url: String?, date: Date?, image: String? = nil) {
        self.id = id
        self.title = title
        self.body = body
        self.url = url
        self.date = date
        self.image = image
    }
}
