import Synchronization

/// "Version N is published", fanned out to any number of listeners: what a store's
/// ``FeedBackend/publications()`` hands out. Each listener gets its own `AsyncStream`, which
/// keeps the last ``backlog`` snapshots if the listener falls behind: a slow listener (the event
/// fan-out runs below the server's threads in priority) still hands on every version, and one
/// that fell further behind than that skips to the newest ones (snapshots are shared, so the
/// backlog holds references, not copies).
public final class SnapshotBroadcaster: Sendable {
    private struct Listeners {
        var next = 0
        var continuations: [Int: AsyncStream<FeedSnapshot>.Continuation] = [:]
    }

    private let listeners = Mutex(Listeners())

    /// How many unread snapshots a listener keeps before the oldest are dropped.
    public static let backlog = 64

    /// Creates a broadcaster with no listeners.
    public init() {}

    /// A stream of every snapshot published from now on; it ends when the listener stops
    /// iterating (the task is cancelled) or drops it.
    public func subscribe() -> AsyncStream<FeedSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: FeedSnapshot.self, bufferingPolicy: .bufferingNewest(Self.backlog))
        let id = listeners.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `snapshot` to every listener.
    public func publish(_ snapshot: FeedSnapshot) {
        let continuations = listeners.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(snapshot) }
    }
}
