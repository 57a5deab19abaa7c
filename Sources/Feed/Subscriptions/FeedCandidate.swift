/// A feed that a site's page names (or a probed path answers with), offered when there are
/// several to choose from.
public struct FeedCandidate: Sendable, Equatable {
    /// The feed's absolute URL.
    public var url: String
    /// The title the page gives it, if any.
    public var title: String?
    /// `rss`, `atom` or `json`.
    public var type: String

    /// Creates a candidate.
    public init(url: String, title: String? = nil, type: String) {
        self.url = url
        self.title = title
        self.type = type
    }
}
