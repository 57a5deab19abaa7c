public import Feed
public import Foundation
public import HTTPClient

/// Finds the feed behind any address a person pastes or shares: the address itself when it is
/// a feed (RSS, Atom or JSON Feed: the feed parser decides), else the feeds its HTML page names
/// with `<link rel="alternate">`, else the first of the usual paths on the page's origin that
/// answers with a feed (``probePaths``, tried in order, one at a time).
///
/// Every fetch (the address, the one feed a page names, each probe, and every redirect of
/// each) runs under `policy` (``AddressPolicy``: checked on each address actually connected to,
/// and address literals refused before connecting), within `limits` (time, bytes, redirects);
/// a page is read for at most its first 2 MiB, 256 levels of nesting and 500 `<link>`s, and at
/// most ``maxCandidates`` feeds are offered.
/// Failures are ``SubscriptionError``s with one sentence for the person.
public struct FeedFinder: Sendable {
    /// The paths tried on the page's origin when the page names no feed, in this order.
    public static let probePaths = ["/feed", "/rss", "/rss.xml", "/atom.xml", "/index.xml", "/feed.json"]
    /// The most feeds offered to choose from (a page naming more lists its first ones).
    public static let maxCandidates = 20
    /// The longest address accepted, in bytes (as ``Feed/ItemLink/maxLength``).
    public static let maxAddressBytes = 2048

    private let fetcher: HTTPFetcher
    /// Which addresses may be connected to.
    public let policy: AddressPolicy

    /// Creates a finder whose every fetch has `limits` and connects only where `policy` allows.
    public init(limits: FetchLimits, policy: AddressPolicy) {
        fetcher = HTTPFetcher(limits: limits)
        self.policy = policy
    }

    /// What `address` leads to. Throws SubscriptionError (.badAddress, .refusedAddress,
    /// .unreachable, .noFeed) with a sentence for the person.
    public func find(_ address: URL) async throws(SubscriptionError) -> FoundFeeds {
        try check(address)
        let body = try await fetch(address)
        if let feed = Self.feed(in: body) { return .feed(address, title: Self.title(of: feed)) }
        var linked: [FeedCandidate] = []
        if PageKind.isHTML(body) {
            let page = PageLinkScanner.scan(body.data, charset: FeedDocument.charset(of: body.contentType))
            let named = FeedLinks.candidates(in: page, pageURL: body.finalURL, limit: Self.maxCandidates)
            // Feeds named by an address literal the policy refuses are never offered; when
            // they are all the page names, the person is told why.
            let refusals = named.map { URL(string: $0.url).flatMap(policy.refusal(of:)) }
            linked = zip(named, refusals).filter { $0.1 == nil }.map(\.0)
            if linked.isEmpty, let refused = refusals.lazy.compactMap({ $0 }).first {
                throw SubscriptionError(.refusedAddress, Self.refusedSentence(refused))
            }
        }
        switch linked.count {
        case 0: return try await probe(origin: body.finalURL, asked: address)
        case 1: return try await verify(linked[0])
        default: return .candidates(linked)
        }
    }

    /// Refuses what is not an http(s) address of at most ``maxAddressBytes``, or is an address
    /// literal inside the network.
    private func check(_ address: URL) throws(SubscriptionError) {
        let text = address.absoluteString
        guard text.utf8.count <= Self.maxAddressBytes else {
            throw SubscriptionError(
                .badAddress, "That address is longer than \(Self.maxAddressBytes) bytes; no feed's is.")
        }
        guard let scheme = address.scheme?.lowercased(), scheme == "http" || scheme == "https",
            address.host?.isEmpty == false
        else {
            throw SubscriptionError(
                .badAddress, "“\(text)” is not a web address: it should start with https:// or http://.")
        }
        if let refused = policy.refusal(of: address) {
            throw SubscriptionError(.refusedAddress, Self.refusedSentence(refused))
        }
    }

    /// GETs `url` under the policy; a failure becomes the person's sentence.
    private func fetch(_ url: URL) async throws(SubscriptionError) -> FetchedBody {
        do {
            return try await get(url)
        } catch {
            if error.kind == .blockedAddress {
                throw SubscriptionError(.refusedAddress, Self.refusedSentence(error.message))
            }
            throw SubscriptionError(.unreachable, "Could not fetch \(Self.display(url)): \(error.message).")
        }
    }

    /// GETs `url` under the policy (nothing conditional is sent, so a `304` is an error).
    private func get(_ url: URL) async throws(UpstreamError) -> FetchedBody {
        switch try await fetcher.fetch(url, policy: policy) {
        case .body(let body): return body
        case .notModified:
            throw UpstreamError("\(url.host ?? "the site") answered 304 to a plain GET", kind: .status)
        }
    }

    /// The one feed a page names, fetched to make sure it is one.
    private func verify(_ candidate: FeedCandidate) async throws(SubscriptionError) -> FoundFeeds {
        let url = URL(string: candidate.url)!
        let body = try await fetch(url)
        guard let feed = Self.feed(in: body) else {
            throw SubscriptionError(
                .noFeed,
                "The page names \(Self.display(url)) as its feed, but that is not a feed (RSS, Atom or JSON Feed)."
            )
        }
        return .feed(url, title: Self.title(of: feed) ?? candidate.title)
    }

    /// The usual paths on `origin`'s scheme, host and port, one at a time, stopping at the first
    /// that answers with a feed, or at the first that cannot be reached at all (the others
    /// would not be either: one timeout is enough to wait for).
    private func probe(origin: URL, asked: URL) async throws(SubscriptionError) -> FoundFeeds {
        for path in Self.probePaths {
            guard let url = Self.url(path, on: origin) else { break }
            let body: FetchedBody
            do {
                body = try await get(url)
            } catch {
                switch error.kind {
                case .blockedAddress:
                    throw SubscriptionError(.refusedAddress, Self.refusedSentence(error.message))
                case .timeout, .transport: throw Self.noFeed(asked, after: "\(error.message)")
                default: continue  // a 404, a page, something too large: the next path
                }
            }
            if let feed = Self.feed(in: body) { return .feed(url, title: Self.title(of: feed)) }
        }
        throw Self.noFeed(asked, after: nil)
    }

    private static func noFeed(_ asked: URL, after failure: String?) -> SubscriptionError {
        let paths = probePaths.joined(separator: ", ")
        let tail = failure.map { " (probing stopped: \($0))" } ?? ""
        return SubscriptionError(
            .noFeed,
            "No feed found at \(display(asked)): it is not a feed, names none, and none of \(paths) on its site "
                + "answered with one\(tail).")
    }

    /// What the feed parser reads in `body`, or nil when it is not a feed. An RSS or Atom
    /// document without items yet is a feed (a new one: its first fetch says it is empty); a
    /// JSON document must have items, since any API's `{"items": []}` would otherwise pass.
    private static func feed(in body: FetchedBody) -> FeedReading? {
        guard
            let (format, reading) = try? FeedDocument.readFeed(
                body.data, contentType: body.contentType, base: body.finalURL)
        else { return nil }
        return format == .xml || !reading.entries.isEmpty ? reading : nil
    }

    /// A feed's own title, at most 200 characters; nil when it has none.
    private static func title(of feed: FeedReading) -> String? {
        guard let title = feed.hints.title?.trimmingCharacters(in: .whitespacesAndNewlines), !title.isEmpty
        else {
            return nil
        }
        return String(title.prefix(200))
    }

    /// `path` on `origin`'s scheme, host and port.
    private static func url(_ path: String, on origin: URL) -> URL? {
        guard var components = URLComponents(url: origin, resolvingAgainstBaseURL: true) else { return nil }
        components.path = path
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.url
    }

    /// The sentence for an address `policy` refused (`reason`: which address, in which range).
    private static func refusedSentence(_ reason: String) -> String {
        "That address cannot be added: \(reason). Feeds inside the server's own network are refused "
            + "unless the server runs with --allow-private-feeds."
    }

    /// The address as the sentences show it: no user, password or query.
    static func display(_ url: URL) -> String { ShownURL.text(of: url) ?? "the address" }
}
