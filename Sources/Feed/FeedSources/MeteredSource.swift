public import Metrics

/// A source that counts and times every fetch (one per reload: the store shares a reload among
/// its callers) into `pullrefresh_reloads_*` and `pullrefresh_reload_duration_seconds`.
public struct MeteredSource: FeedSource {
    private let base: any FeedSource
    private let started: Counter
    private let succeeded: Counter
    private let failed: Counter
    private let duration: Histogram

    /// Wraps `base`, registering its series in `registry`.
    public init(_ base: any FeedSource, registry: MetricsRegistry) {
        self.base = base
        started = registry.counter("pullrefresh_reloads_started_total", help: "Reloads started.")
        succeeded = registry.counter(
            "pullrefresh_reloads_succeeded_total", help: "Reloads whose source answered with valid items.")
        failed = registry.counter(
            "pullrefresh_reloads_failed_total", help: "Reloads that failed; the last good version stays.")
        duration = registry.histogram(
            "pullrefresh_reload_duration_seconds",
            help: "Time a reload's source took, including the --reload-delay upstream wait.",
            bounds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30])
    }

    /// Fetches from the wrapped source, recording the outcome and the time taken.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        started.increment()
        let start = ContinuousClock.now
        defer { duration.observe(ContinuousClock.now - start) }
        do {
            let items = try await base.fetch(current: current)
            succeeded.increment()
            return items
        } catch {
            failed.increment()
            throw error
        }
    }
}
