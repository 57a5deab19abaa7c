import Allocator
public import Feed
import Foundation
public import HTTPClient
public import HTTPServer
public import Images
public import Logging
public import Metrics
import Synchronization

/// `GET /img/{item-id}?w={width}`: the thumbnail of that item's `image` in the current store,
/// made once per (image URL, width, format) and kept in a bounded cache.
///
/// Nothing but an item's own image is ever fetched (no URL parameter: not an open proxy).
/// Concurrent requests for a thumbnail not made yet share one fetch and one resize; failures
/// are remembered for a minute. With `--redis`, each instance keeps its own cache: the image
/// path never talks to Redis.
public final class ThumbnailService: Sendable {
    private typealias Outcome = Result<ThumbnailEntry, HTTPError>

    private let fetcher: ImageFetcher
    private let thumbnailer: Thumbnailer
    private let logger: Logger
    private let index: ImageIndex
    private let cache: ThumbnailCache
    private let failures: FailureCache
    private let resizes: ResizeQueue
    private let metrics: ThumbnailMetrics
    /// The widths `?w=` may ask for.
    private let widths: [Int]
    private let flights = Mutex<[ThumbnailKey: Task<Outcome, Never>]>([:])

    /// The default bound of the cache: 32 MiB.
    public static let defaultCacheBytes = 32 << 20

    /// Creates the service. `widths` are the only widths `?w=` may ask for (the page's slots
    /// decide them: `ThumbnailSlot.widths` in FeedWeb). `metrics` receives its series (a private
    /// registry when nil).
    public init(
        store: any FeedBackend, fetcher: ImageFetcher, widths: [Int],
        cacheBytes: Int = ThumbnailService.defaultCacheBytes,
        thumbnailer: Thumbnailer = Thumbnailer(), logger: Logger = Logger(), metrics: MetricsRegistry? = nil,
        failureTTL: Duration = .seconds(60)
    ) {
        self.fetcher = fetcher
        self.widths = widths
        self.thumbnailer = thumbnailer
        self.logger = logger
        index = ImageIndex(store: store)
        cache = ThumbnailCache(capacity: cacheBytes)
        failures = FailureCache(ttl: failureTTL)
        resizes = ResizeQueue.shared
        self.metrics = ThumbnailMetrics(registry: metrics ?? MetricsRegistry(), cache: cache)
    }

    /// Adds `GET /img/*` to `router`.
    public func register(on router: inout Router) {
        router.on("GET", "/img/*", access: .reader, .async { request in try await self.respond(to: request) })
    }

    /// The cache's bytes and entries, for tests and the benchmark.
    public var cacheUsage: (bytes: Int, entries: Int) { cache.usage }

    /// Answers one request: `400` for a width outside the service's widths, `404` for an
    /// unknown item or one without an image, `502` when the original cannot be fetched or
    /// decoded.
    public func respond(to request: Request) async throws(HTTPError) -> Response {
        let id = request.parameters["*"] ?? ""
        guard let text = request.queryValue("w"), let width = Int(text), widths.contains(width)
        else {
            let allowed = widths.map(String.init).joined(separator: ", ")
            throw HTTPError.badRequest(
                "Query parameter 'w' must be one of \(allowed).", code: "invalid_width")
        }
        let (found, revision) = index.image(of: id)
        guard let imageURL = found else { throw HTTPError.notFound("No item with that id has an image.") }
        let key = ThumbnailKey(
            imageURL: imageURL, width: width, format: Self.format(accept: request.headers["Accept"]))
        let entry: ThumbnailEntry
        if let hit = cache.lookup(key) {
            metrics.hits.increment()
            entry = hit
        } else {
            metrics.misses.increment()
            entry = try await shared(key).get()
        }
        return entry.response(
            ifNoneMatch: request.headers["If-None-Match"], content: index, version: revision)
    }

    /// WebP when `Accept` names `image/webp` (every current browser does for images), else
    /// JPEG. AVIF is not sent: every browser that takes it takes WebP, and at these sizes it
    /// saves a few hundred bytes for several times the encoding time (README, Pictures).
    static func format(accept: String?) -> ThumbnailFormat {
        guard let accept else { return .jpeg }
        let takesWebP = AcceptHeader.entries(accept).contains { $0.value == "image/webp" && $0.quality > 0 }
        return takesWebP ? .webp : .jpeg
    }

    /// The one making of `key` in flight, joined, or started.
    private func shared(_ key: ThumbnailKey) async -> Outcome {
        let task = flights.withLock { flights in
            if let running = flights[key] { return running }
            let task = Task { await self.make(key) }
            flights[key] = task
            return task
        }
        return await task.value
    }

    /// Fetches, resizes and caches `key`; the flight ends when this returns.
    private func make(_ key: ThumbnailKey) async -> Outcome {
        defer { _ = flights.withLock { $0.removeValue(forKey: key) } }
        // A thumbnail made by a flight that ended just before this one started.
        if let made = cache.lookup(key) { return .success(made) }
        if let failure = failures.lookup(key.imageURL) { return .failure(failure) }
        guard let url = URL(string: key.imageURL) else {
            return fail(key, reason: UpstreamError.Kind.content.rawValue, "not a URL")
        }
        let original: FetchedBody
        do {
            metrics.fetches.increment()
            original = try await fetcher.fetch(url)
        } catch {
            return fail(key, reason: error.kind.rawValue, error.message)
        }
        let thumbnailer = thumbnailer
        let started = ContinuousClock.now
        let bytes = [UInt8](original.data)
        let made = await resizes.run {
            Result { () throws(ImageError) in
                try thumbnailer.thumbnail(of: bytes, side: key.width, format: key.format)
            }
        }
        metrics.resizeTime.observe(ContinuousClock.now - started)
        // The fetch and the decode spread blocks of up to a few hundred kilobytes over the
        // allocator's per-thread arenas, which keep them after free: give the free pages back
        // once per thumbnail made (rare, and it has just cost milliseconds), so RSS tracks the
        // cache rather than its history (bench/thumbnails.py).
        Allocator.returnFreePages()
        switch made {
        case .failure(let error):
            return fail(
                key, reason: "image_\(error.reason)", "\(url.host ?? key.imageURL): the image \(error)")
        case .success(let thumbnail):
            let entry = ThumbnailEntry(thumbnail)
            cache.insert(entry, for: key)
            metrics.made.increment()
            return .success(entry)
        }
    }

    /// A `502` for `key`'s original, logged, counted and remembered.
    private func fail(_ key: ThumbnailKey, reason: String, _ detail: String) -> Outcome {
        metrics.failed(reason)
        logger.warning("thumbnail of \(key.imageURL) failed (\(reason)): \(detail)")
        let error = HTTPError(
            502, code: "image_unavailable", message: "The picture could not be made into a thumbnail.",
            headers: ["Cache-Control": "no-store"])
        failures.remember(error, for: key.imageURL)
        return .failure(error)
    }
}
