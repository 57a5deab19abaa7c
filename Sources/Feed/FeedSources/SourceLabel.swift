/// Which feed of a river an item came from, as the page and the API show it.
public struct SourceLabel: Sendable, Equatable {
    /// The source's stable key (derived from its URL): the prefix of its items' ids and the value
    /// of `?source=`.
    public var key: String
    /// The title: the subscription list's, else the feed's own, else its host.
    public var title: String
    /// The feed's web site (absolute http/https), when it names one: the title links to it.
    public var siteURL: String?
    /// The folder the person put it in (one level; `?folder=` filters by it), nil for none.
    public var folder: String?

    /// Whether `text` has the shape of a source key: 12 lowercase hex digits.
    public static func isWellFormedKey(_ text: String) -> Bool {
        text.utf8.count == 12 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Creates a label.
    public init(key: String, title: String, siteURL: String? = nil, folder: String? = nil) {
        self.key = key
        self.title = title
        self.siteURL = siteURL
        self.folder = folder
    }
}
