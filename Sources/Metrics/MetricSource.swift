/// Where one series' value comes from when the registry is scraped.
enum MetricSource: Sendable {
    case counter(Counter)
    case gauge(Gauge)
    /// Read at scrape time from state that is kept elsewhere anyway (a version, a queue length).
    case sampled(@Sendable () -> Double)
    case histogram(Histogram)
}
