/// Which feed of a river an item came from, as the page and the API show it.
public struct SourceLabel: Sendable, Equatable {
    /// The source's stable key (derived from its URL): the prefix of its items' ids and the value
    /// of `?source=`.
    public var key: String
    /// The title: the subscription list's, else the feed's own, else its host.
    public var title: String
    /// The feed's web site (absolute http/https), when it names one: the title links to it.
    public var siteURL: String?

    /// Creates a label.
    public init(key: String, title: String, siteURL: String? = nil) {
        self.key = key
        self.title = title
        self.siteURL = siteURL
    }
}
