import HTTPClient
import Images
import Metrics

/// The thumbnail route's series: thumbnails made, cache hits and misses, upstream fetches,
/// failures by reason and the resize time.
struct ThumbnailMetrics: Sendable {
    let made: Counter
    let hits: Counter
    let misses: Counter
    let fetches: Counter
    let resizeTime: Histogram
    private let failures: [String: Counter]

    /// Every failure reason: the fetch's (``UpstreamError/Kind``) and the decoder's
    /// (``ImageError/reason``), the latter prefixed `image_`.
    static let reasons: [String] =
        UpstreamError.Kind.allCases.map(\.rawValue)
        + ["unsupported", "too_large", "undecodable", "encode", "unavailable"].map { "image_\($0)" }

    init(registry: MetricsRegistry, cache: ThumbnailCache) {
        made = registry.counter(
            "pullrefresh_thumbnails_made_total", help: "Thumbnails fetched, resized and cached.")
        hits = registry.counter(
            "pullrefresh_thumbnail_cache_hits_total", help: "Thumbnail requests answered from the cache.")
        misses = registry.counter(
            "pullrefresh_thumbnail_cache_misses_total", help: "Thumbnail requests the cache did not hold.")
        fetches = registry.counter(
            "pullrefresh_thumbnail_fetches_total", help: "Originals fetched from image hosts.")
        resizeTime = registry.histogram(
            "pullrefresh_thumbnail_resize_seconds", help: "Time to decode, resize and encode one thumbnail.",
            bounds: [0.002, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28])
        var failures: [String: Counter] = [:]
        for reason in Self.reasons {
            failures[reason] = registry.counter(
                "pullrefresh_thumbnail_failures_total", help: "Thumbnails that could not be made, by reason.",
                labels: [("reason", reason)])
        }
        self.failures = failures
        registry.sampled(
            "pullrefresh_thumbnail_cache_bytes", help: "Bytes held by the thumbnail cache.", kind: .gauge
        ) { Double(cache.usage.bytes) }
    }

    /// Counts one failure.
    func failed(_ reason: String) {
        failures[reason]?.increment()
    }
}
