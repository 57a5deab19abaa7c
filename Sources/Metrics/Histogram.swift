/// A distribution of durations in fixed buckets (Prometheus `histogram`).
///
/// Observing costs a short scan of the bounds and three relaxed atomic adds; nothing is
/// allocated. Buckets are stored non-cumulatively and summed when rendered.
public final class Histogram: Sendable {
    /// Upper bounds in seconds, ascending, without `+Inf`.
    public let bounds: [Double]
    private let boundNanos: [UInt64]
    /// One per bound plus the `+Inf` overflow.
    private let buckets: [Counter]
    private let sumNanos = Counter()

    /// Default buckets for request durations: 0.5 ms to 10 s.
    public static let requestBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Creates a histogram with ascending positive `bounds` in seconds.
    public init(bounds: [Double] = Histogram.requestBuckets) {
        precondition(!bounds.isEmpty && zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 })
        self.bounds = bounds
        boundNanos = bounds.map { UInt64(($0 * 1e9).rounded()) }
        buckets = (0...bounds.count).map { _ in Counter() }
    }

    /// Records one duration in nanoseconds.
    public func observe(nanoseconds: UInt64) {
        var index = 0
        while index < boundNanos.count, nanoseconds > boundNanos[index] {
            index += 1
        }
        buckets[index].increment()
        sumNanos.increment(by: nanoseconds)
    }

    /// Records one duration.
    public func observe(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanos = max(0, seconds) * 1_000_000_000 + attoseconds / 1_000_000_000
        observe(nanoseconds: UInt64(clamping: nanos))
    }

    /// A consistent-enough reading for rendering: cumulative counts per bound (the last is
    /// `+Inf`, the total count) and the sum in seconds.
    public func snapshot() -> (cumulative: [UInt64], sumSeconds: Double) {
        var running: UInt64 = 0
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(buckets.count)
        for bucket in buckets {
            running &+= bucket.value
            cumulative.append(running)
        }
        return (cumulative, Double(sumNanos.value) / 1e9)
    }
}
