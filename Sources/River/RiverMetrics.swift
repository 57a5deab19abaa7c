import HTTPClient
import Metrics

/// The river's series: per source, fetches by result and their durations; failures by reason.
struct RiverMetrics: Sendable {
    struct PerSource: Sendable {
        let succeeded: Counter
        let notModified: Counter
        let failed: Counter
        let duration: Histogram
    }

    private let perSource: [String: PerSource]
    private let failures: [UpstreamError.Kind: Counter]

    init(keys: [String], registry: MetricsRegistry) {
        var perSource: [String: PerSource] = [:]
        let help = "Fetches of one river source, by result (ok, not_modified, failed)."
        for key in keys {
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
        var failures: [UpstreamError.Kind: Counter] = [:]
        for reason in UpstreamError.Kind.allCases {
            failures[reason] = registry.counter(
                "pullrefresh_source_failures_total", help: "Failed source fetches, by reason.",
                labels: [("reason", reason.rawValue)])
        }
        self.perSource = perSource
        self.failures = failures
    }

    func record(key: String, result: River.FetchResult, duration: Duration) {
        guard let series = perSource[key] else { return }
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
