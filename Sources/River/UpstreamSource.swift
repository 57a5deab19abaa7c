public import Feed
public import FeedParsing
public import Foundation
public import HTTPClient
public import Logging
import Synchronization

/// A feed behind a URL (`--source`): every reload GETs it (conditionally, once it has
/// validators) and parses JSON Feed, RSS, Atom or our own JSON. A `304` returns the current
/// items unchanged, so the version stays. A failed fetch or parse throws (the store keeps its
/// last good version) and is what ``status`` reports until the next success.
///
/// A reload that parsed only because libxml2 recovered from an ill-formed document succeeds, says
/// so in ``status`` (`recovered`), and logs one warning: the first time, and again only after a
/// reload that needed no recovery, so a feed that is always slightly broken does not fill the log.
///
/// Items without a date get the time they were first seen, minus their position in the feed in
/// milliseconds, so they keep the feed's order; later reloads keep that date (the store's, else
/// this source's memory of it), so an undated item never jumps to the top again.
public final class UpstreamSource: FeedSource {
    /// The feed's URL.
    public let url: URL
    private let fetcher: HTTPFetcher
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var etag: String?
        var lastModified: String?
        var firstSeen: [String: Date] = [:]
        var status = FeedSourceStatus(ok: true)
        /// Whether the last recovered reload was logged and no clean one came since.
        var recoveryLogged = false
    }

    /// Creates a source; `now` stamps items without a date (injected so tests control time);
    /// `logger` gets the recovery warnings.
    public init(
        url: URL, limits: FetchLimits, logger: Logger = Logger(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        fetcher = HTTPFetcher(limits: limits)
        self.logger = logger
        self.now = now
    }

    /// The URL as messages show it (to clients in a `502`, in the log): without user, password
    /// or query, which may hold credentials.
    public var displayURL: String { ShownURL.text(of: url) ?? "(source)" }

    /// How the last fetch went.
    public var status: FeedSourceStatus { state.withLock { $0.status } }

    /// Fetches and parses the feed now; throws ``FeedError`` with the reason.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        do {
            let (items, parsed) = try await fetchItems(current: current)
            state.withLock { state in
                // A 304 keeps what the last parse said.
                let recovered = parsed.map(\.recovered) ?? state.status.recovered
                state.status = FeedSourceStatus(ok: true, recovered: recovered)
            }
            return items
        } catch {
            state.withLock { $0.status = FeedSourceStatus(ok: false, error: error.message) }
            throw FeedError("upstream \(displayURL): \(error.message)")
        }
    }

    /// The items, and what the parse recovered from (nil for a `304`, or a well-formed feed).
    private func fetchItems(current: [FeedItem]) async throws(UpstreamError) -> ([FeedItem], Parsed?) {
        // Validators are only worth sending while the store holds what they describe.
        let validators = state.withLock {
            current.isEmpty ? Validators() : Validators(etag: $0.etag, lastModified: $0.lastModified)
        }
        switch try await poll(current: current, validators: validators) {
        case .notModified:
            return (current, nil)
        case .items(let items, let next, _, _, let recovered):
            state.withLock {
                $0.etag = next.etag
                $0.lastModified = next.lastModified
            }
            return (items, Parsed(recovered: recovered))
        }
    }

    /// What a fetch that brought a body says of its parse.
    private struct Parsed {
        /// What libxml2 recovered from (``FeedReading/recovered``), nil for a well-formed feed.
        var recovered: String?
    }

    /// Logs what a parse recovered from once per run of ill-formed answers, not at every reload;
    /// a well-formed answer ends the run.
    private func noteRecovery(_ recovered: String?) {
        let shouldLog = state.withLock { state in
            defer { state.recoveryLogged = recovered != nil }
            return recovered != nil && !state.recoveryLogged
        }
        if shouldLog, let recovered {
            logger.warning("upstream \(displayURL): the feed is not well-formed XML; \(recovered)")
        }
    }

    /// `ETag` and `Last-Modified` of a response, sent back as `If-None-Match` and
    /// `If-Modified-Since`.
    public struct Validators: Sendable, Equatable {
        /// The `ETag`.
        public var etag: String?
        /// The `Last-Modified` date, as sent.
        public var lastModified: String?

        /// Creates validators.
        public init(etag: String? = nil, lastModified: String? = nil) {
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// What one fetch brought.
    public enum PollResult: Sendable {
        /// `304`: the items are unchanged; `freshFor` as in ``FetchedBody/freshFor``.
        case notModified(freshFor: Double?)
        /// New items (newest first), the validators to send next time, freshness, hints, and
        /// what the parse recovered from (``FeedReading/recovered``; nil when well-formed).
        case items(
            [FeedItem], validators: Validators, freshFor: Double?, hints: FeedHints, recovered: String?)
    }

    /// One fetch with `validators` (this source's own, from ``fetchItems(current:)``; a river
    /// fetches its sources as one batch and hands each body to ``read(_:current:)``); `current`
    /// is what the store shows of this feed (for the dates of undated items), only evaluated
    /// when a body brings undated items. Does not touch ``status``; throws ``UpstreamError``.
    private func poll(current: @autoclosure () -> [FeedItem], validators: Validators)
        async throws(UpstreamError) -> PollResult
    {
        let response = try await fetcher.fetch(
            url, etag: validators.etag, lastModified: validators.lastModified)
        switch response {
        case .notModified(let freshFor): return .notModified(freshFor: freshFor)
        case .body(let body): return try read(body, current: current())
        }
    }

    /// Parses a body fetched from this feed (by ``poll(current:validators:)``, or by a river's
    /// batch) into its items: the dates of undated ones as this type describes.
    func read(_ body: FetchedBody, current: @autoclosure () -> [FeedItem]) throws(UpstreamError)
        -> PollResult
    {
        let reading = try FeedDocument.read(body.data, contentType: body.contentType, base: body.finalURL)
        noteRecovery(reading.recovered)
        let entries = reading.entries
        let fetchedAt = now()
        let shownItems = entries.contains(where: { $0.date == nil }) ? current() : []
        let items = state.withLock { state in
            // What the store already shows wins (with Redis it may come from another instance).
            var shown: [String: Date] = [:]
            for item in shownItems { shown[item.id] = item.createdAt }
            var seen = Set<String>()
            var firstSeen: [String: Date] = [:]
            var items: [FeedItem] = []
            items.reserveCapacity(entries.count)
            for (position, entry) in entries.enumerated() where seen.insert(entry.id).inserted {
                let date =
                    entry.date ?? shown[entry.id] ?? state.firstSeen[entry.id]
                    ?? fetchedAt.addingTimeInterval(-Double(position) / 1000)
                if entry.date == nil { firstSeen[entry.id] = date }
                items.append(
                    FeedItem(
                        id: entry.id, title: entry.title, body: entry.body, createdAt: date, url: entry.url,
                        image: entry.image))
            }
            state.firstSeen = firstSeen
            return items.sorted(by: FeedItem.newestFirst)
        }
        return .items(
            items, validators: Validators(etag: body.etag, lastModified: body.lastModified),
            freshFor: body.freshFor, hints: reading.hints, recovered: reading.recovered)
    }
}
