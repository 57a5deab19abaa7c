import Feed
import Foundation

/// The feeds a page names: its `<link rel="alternate">` elements of feed types, resolved and
/// deduplicated (``candidates(in:pageURL:limit:)``).
enum FeedLinks {
    /// The `type`s that name a feed, with the ``Feed/FeedCandidate/type`` each gives.
    /// `application/json` counts only when the link looks like a feed (``looksLikeJSONFeed(_:title:)``).
    static let types = [
        "application/rss+xml": "rss", "application/atom+xml": "atom", "application/feed+json": "json",
        "application/json": "json",
    ]

    /// The page's feeds in page order, at most `limit`: `rel` holding the token `alternate`
    /// (any case, among others), a feed type, an `href` resolved against the page's
    /// `<base href>` (itself resolved against `pageURL`, the URL after redirects) to an http(s)
    /// URL of at most ``FeedFinder/maxAddressBytes``, without its fragment, each URL once.
    static func candidates(in page: PageLinks, pageURL: URL, limit: Int) -> [FeedCandidate] {
        let base = page.base.flatMap { resolve($0, against: pageURL) } ?? pageURL
        var seen = Set<String>()
        var found: [FeedCandidate] = []
        for link in page.links where found.count < limit {
            let rel = link.rel.lowercased().split(whereSeparator: isHTMLSpace)
            guard rel.contains("alternate") else { continue }
            let media = (link.type ?? "").split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            let title = text(link.title)
            guard let media, let type = types[media], let url = resolve(link.href, against: base),
                media != "application/json" || looksLikeJSONFeed(url, title: title)
            else { continue }
            guard seen.insert(url.absoluteString).inserted else { continue }
            found.append(FeedCandidate(url: url.absoluteString, title: title, type: type))
        }
        return found
    }

    /// `href` (surrounding spaces and inner tabs and newlines dropped, as browsers do) resolved
    /// against `base`: an absolute http(s) URL with a host, without its fragment, at most
    /// ``FeedFinder/maxAddressBytes``; nil otherwise (`javascript:`, `data:`, `mailto:`, …).
    static func resolve(_ href: String, against base: URL) -> URL? {
        let cleaned = String(
            href.trimmingCharacters(in: .whitespacesAndNewlines).unicodeScalars.filter {
                $0 != "\t" && $0 != "\n" && $0 != "\r"
            })
        guard let resolved = URL(string: cleaned, relativeTo: base)?.absoluteURL,
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.host?.isEmpty == false
        else { return nil }
        components.fragment = nil
        guard let url = components.url, url.absoluteString.utf8.count <= FeedFinder.maxAddressBytes else {
            return nil
        }
        return url
    }

    /// Whether an `application/json` alternate is a feed rather than an API document (WordPress
    /// names its REST API this way on every page): its path or title says "feed", and it is not
    /// under `/wp-json/` or an oEmbed endpoint.
    static func looksLikeJSONFeed(_ url: URL, title: String?) -> Bool {
        let path = url.path.lowercased()
        if path.contains("/wp-json/") || path.contains("oembed") { return false }
        return path.contains("feed") || (title?.lowercased().contains("feed") ?? false)
    }

    /// A title attribute with its whitespace collapsed, at most 200 characters; nil when empty.
    static func text(_ title: String?) -> String? {
        guard let title else { return nil }
        let words = title.split(whereSeparator: { $0.isWhitespace })
        guard !words.isEmpty else { return nil }
        return String(words.joined(separator: " ").prefix(200))
    }

    /// HTML's ASCII whitespace, which separates `rel` tokens.
    private static func isHTMLSpace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r"
            || character == "\u{0C}"
    }
}
