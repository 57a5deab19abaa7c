import Metrics

/// The server's per-request series, laid out at startup so recording one request is a few
/// array reads and relaxed atomic adds: no lock, no allocation, no label formatting.
final class ServerMetrics: Sendable {
    /// `[route][status class]`; the last route slot is `unmatched`.
    private let requests: [[Counter]]
    private let durations: [Histogram]
    private let bytes: [Counter]
    private let stored: Counter
    /// Indexed like ``StreamCloseReason/allCases``.
    private let streamsClosed: [Counter]

    init(registry: MetricsRegistry, prefix: String, routes: [String]) {
        let labels = routes + ["unmatched"]
        requests = labels.map { route in
            (1...5).map { digit in
                registry.counter(
                    prefix + "_http_requests_total",
                    help: "HTTP requests answered, by route pattern and status class.",
                    labels: [("route", route), ("status", "\(digit)xx")])
            }
        }
        durations = labels.map { route in
            registry.histogram(
                prefix + "_http_request_duration_seconds",
                help: "Time from the request's headers to its response being queued, by route pattern.",
                labels: [("route", route)])
        }
        bytes = labels.map { route in
            registry.counter(
                prefix + "_http_response_bytes_total",
                help: "Response body bytes queued (HEAD counts the GET body), by route pattern.",
                labels: [("route", route)])
        }
        stored = registry.counter(
            prefix + "_http_stored_responses_total",
            help: "Requests answered with a stored response, without routing (counted by route too).")
        streamsClosed = StreamCloseReason.allCases.map { reason in
            registry.counter(
                prefix + "_event_streams_closed_total",
                help: "Streaming responses ended or refused, by reason.",
                labels: [("reason", reason.rawValue)])
        }
    }

    /// Counts a stream that ended (or was refused) for `reason`.
    func recordStreamClosed(_ reason: StreamCloseReason) {
        if let index = StreamCloseReason.allCases.firstIndex(of: reason) { streamsClosed[index].increment() }
    }

    /// Counts a request answered from the stored responses (``record`` counts it as well).
    func recordStoredResponse() {
        stored.increment()
    }

    /// Records one answered request.
    func record(routeIndex: Int, status: Int, bodyBytes: Int, nanoseconds: UInt64) {
        let slot = routeIndex >= 0 && routeIndex < requests.count - 1 ? routeIndex : requests.count - 1
        let statusClass = min(max(status / 100, 1), 5) - 1
        requests[slot][statusClass].increment()
        durations[slot].observe(nanoseconds: nanoseconds)
        bytes[slot].increment(by: UInt64(bodyBytes))
    }
}
