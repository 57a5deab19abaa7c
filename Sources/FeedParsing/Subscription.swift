public import Foundation

/// One feed a river reads: its URL and, when the subscription list names one, its title.
public struct Subscription: Sendable, Equatable {
    /// The feed's URL (http or https).
    public var url: URL
    /// The title from the OPML outline (`title`, else `text`); nil for a bare `--source`.
    public var title: String?
    /// The folder: the title of the OPML outline it sits in (one level), nil for none.
    public var folder: String?

    /// Creates a subscription.
    public init(url: URL, title: String? = nil, folder: String? = nil) {
        self.url = url
        self.title = title
        self.folder = folder
    }

    /// Whether `url` may be a source: absolute http or https with a host.
    public static func isAcceptable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        return url.host?.isEmpty == false
    }
}
