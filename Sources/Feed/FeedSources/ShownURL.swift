public import Foundation

/// A feed's or a page's URL as messages show it (the log, a `502`, a sentence for the person):
/// without user, password, query (which may hold credentials or tokens) or fragment; a dropped
/// query is marked `?…`.
public enum ShownURL {
    /// `url` as shown, or nil when it has no components to show.
    public static func text(of url: URL) -> String? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
        let hadQuery = components.query != nil
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string.map { $0 + (hadQuery ? "?…" : "") }
    }

    /// `url` without user or password but with its query: the address a feed is exported and
    /// listed under (an OPML `xmlUrl`), empty when it has no components.
    public static func withoutCredentials(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.user = nil
        components.password = nil
        return components.string ?? ""
    }
}
