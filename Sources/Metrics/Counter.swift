public import Synchronization

/// A monotonically increasing count, updated with one relaxed atomic add: safe and cheap from
/// any thread, no lock, no allocation.
public final class Counter: Sendable {
    @usableFromInline let storage = Atomic<UInt64>(0)

    /// Creates a counter at zero; register it with ``MetricsRegistry/counter(_:help:labels:)``.
    public init() {}

    /// Adds `amount` (default 1).
    @inlinable
    public func increment(by amount: UInt64 = 1) {
        storage.wrappingAdd(amount, ordering: .relaxed)
    }

    /// The current count.
    public var value: UInt64 {
        storage.load(ordering: .relaxed)
    }
}
