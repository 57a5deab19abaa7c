import Synchronization

/// A value that goes up and down (open streams, connected clients), kept as an integer so
/// updates are single atomic operations.
public final class Gauge: Sendable {
    private let storage = Atomic<Int64>(0)

    /// Creates a gauge at zero; register it with ``MetricsRegistry/gauge(_:help:labels:)``.
    public init() {}

    /// Adds `amount` (negative to decrease).
    public func add(_ amount: Int64) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    /// Replaces the value.
    public func set(_ value: Int64) {
        storage.store(value, ordering: .relaxed)
    }

    /// The current value.
    public var value: Int64 {
        storage.load(ordering: .relaxed)
    }
}
