/// A source that waits before each fetch: the simulated upstream latency of `--reload-delay`,
/// placed inside the source so reload metrics measure it as part of the upstream's time.
public struct DelayedSource: FeedSource {
    private let base: any FeedSource
    private let delay: Duration

    /// Wraps `base`, sleeping `delay` before every fetch.
    public init(_ base: any FeedSource, delay: Duration) {
        self.base = base
        self.delay = delay
    }

    /// Sleeps, then fetches from the wrapped source.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        if delay > .zero {
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw FeedError("reload was cancelled")
            }
        }
        return try await base.fetch(current: current)
    }
}
