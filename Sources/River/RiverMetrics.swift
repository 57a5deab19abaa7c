import HTTPClient
import Metrics
import Synchronization

/// The river's series: per source, fetches by result and their durations; failures by reason.
final class RiverMetrics: Sendable {
    struct PerSource: Sendable {
        let succeeded: Counter
        let notModified: Counter
        let failed: Counter
        let duration: Histogram
    }

    private let registry: MetricsRegistry
    /// Each key's series, registered when the key first joins the river and kept after it
    /// leaves: a ``Metrics/MetricsRegistry`` never drops a series (its families are shared by
    /// every source, and a counter that vanished and came back at 0 would read as a reset), so a
    /// removed source's series stay until the process restarts, and a key that comes back counts
    /// on. They are bounded by the sources subscribed during one run.
    private let perSource = Mutex<[String: PerSource]>([:])
    private let failures: [UpstreamError.Kind: Counter]

    init(registry: MetricsRegistry) {
        self.registry = registry
        var failures: [UpstreamError.Kind: Counter] = [:]
        for reason in UpstreamError.Kind.allCases {
            failures[reason] = registry.counter(
                "pullrefresh_source_failures_total", help: "Failed source fetches, by reason.",
                labels: [("reason", reason.rawValue)])
        }
        self.failures = failures
    }

    /// Registers `key`'s series unless it has them.
    func register(key: String) {
        perSource.withLock { perSource in
            guard perSource[key] == nil else { return }
            let help = "Fetches of one river source, by result (ok, not_modified, failed)."
            func counter(_ result: String) -> Counter {
                registry.counter(
                    "pullrefresh_source_fetches_total", help: help,
                    labels: [("source", key), ("result", result)])
            }
            perSource[key] = PerSource(
                succeeded: counter("ok"), notModified: counter("not_modified"), failed: counter("failed"),
                duration: registry.histogram(
                    "pullrefresh_source_fetch_duration_seconds", help: "Time one fetch of a source took.",
                    labels: [("source", key)], bounds: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 15]))
        }
    }

    func record(key: String, result: River.FetchResult, duration: Duration) {
        guard let series = perSource.withLock({ $0[key] }) else { return }
        series.duration.observe(duration)
        switch result {
        case .items: series.succeeded.increment()
        case .notModified: series.notModified.increment()
        case .failed(let error):
            series.failed.increment()
            failures[error.kind]?.increment()
        }
    }
}
