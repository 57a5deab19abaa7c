/// The Prometheus metric types this registry renders.
public enum MetricKind: String, Sendable {
    /// Only goes up; name ends in `_total`.
    case counter
    /// Goes up and down.
    case gauge
    /// Bucketed observations with `_bucket`, `_sum` and `_count` series.
    case histogram
}
