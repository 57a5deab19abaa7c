import Synchronization

/// Named metrics rendered in the Prometheus text exposition format, version 0.0.4.
///
/// Register every series once, at startup (registration takes a lock); the returned
/// ``Counter``, ``Gauge`` and ``Histogram`` objects are then updated lock-free from any
/// thread. State that already lives elsewhere is registered as a *sampled* series: a closure
/// the registry calls on each scrape, so the hot path pays nothing for it.
///
/// Adding a metric elsewhere in the code base, e.g. open event streams:
///
/// ```swift
/// let streams = registry.gauge("pullrefresh_event_streams_open", help: "Open event streams.")
/// streams.add(1)   // when a stream opens
/// streams.add(-1)  // when it closes
/// ```
///
/// or, for a value some other object owns (a Redis connection state):
///
/// ```swift
/// registry.sampled("pullrefresh_redis_up", help: "1 when connected to Redis.", kind: .gauge) {
///     store.isConnected ? 1 : 0
/// }
/// ```
public final class MetricsRegistry: Sendable {
    struct Series: Sendable {
        let labels: String
        let source: MetricSource
    }

    struct Family: Sendable {
        let name: String
        let help: String
        let kind: MetricKind
        var series: [Series]
    }

    private let families = Mutex<[Family]>([])

    /// Creates an empty registry.
    public init() {}

    /// Registers and returns a counter. Several calls with the same name and different labels
    /// add series to one family; `help` and the kind must agree.
    public func counter(_ name: String, help: String, labels: [(String, String)] = []) -> Counter {
        let counter = Counter()
        register(name, help: help, kind: .counter, labels: labels, source: .counter(counter))
        return counter
    }

    /// Registers and returns a gauge.
    public func gauge(_ name: String, help: String, labels: [(String, String)] = []) -> Gauge {
        let gauge = Gauge()
        register(name, help: help, kind: .gauge, labels: labels, source: .gauge(gauge))
        return gauge
    }

    /// Registers and returns a histogram with `bounds` in seconds.
    public func histogram(
        _ name: String, help: String, labels: [(String, String)] = [],
        bounds: [Double] = Histogram.requestBuckets
    ) -> Histogram {
        let histogram = Histogram(bounds: bounds)
        register(name, help: help, kind: .histogram, labels: labels, source: .histogram(histogram))
        return histogram
    }

    /// Registers a counter or gauge whose value `read` returns at each scrape.
    public func sampled(
        _ name: String, help: String, kind: MetricKind, labels: [(String, String)] = [],
        read: @escaping @Sendable () -> Double
    ) {
        precondition(kind != .histogram, "a sampled series is a counter or a gauge")
        register(name, help: help, kind: kind, labels: labels, source: .sampled(read))
    }

    /// Every family with its series, as `text/plain; version=0.0.4`.
    public func exposition() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        out.reserveCapacity(4096)
        for family in snapshot {
            out += "# HELP \(family.name) \(Exposition.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for series in family.series {
                Exposition.write(series.source, name: family.name, labels: series.labels, into: &out)
            }
        }
        return out
    }

    /// The content type of ``exposition()``.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private func register(
        _ name: String, help: String, kind: MetricKind, labels: [(String, String)], source: MetricSource
    ) {
        precondition(Exposition.isValidName(name), "invalid metric name '\(name)'")
        precondition(
            labels.allSatisfy { Exposition.isValidName($0.0) && !$0.0.contains(":") && $0.0 != "le" },
            "invalid label name in \(labels)")
        let series = Series(labels: Exposition.labelText(labels), source: source)
        families.withLock { families in
            if let index = families.firstIndex(where: { $0.name == name }) {
                precondition(
                    families[index].kind == kind && families[index].help == help,
                    "metric '\(name)' registered twice with a different type or help")
                precondition(
                    !families[index].series.contains { $0.labels == series.labels },
                    "metric '\(name)\(series.labels)' registered twice")
                families[index].series.append(series)
            } else {
                families.append(Family(name: name, help: help, kind: kind, series: [series]))
            }
        }
    }
}
