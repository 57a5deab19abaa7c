import Feed
import Synchronization

/// This instance's copy of the shared feed: the newest snapshot it knows (read without waiting)
/// and the refreshes waiting for another instance's reload to finish.
///
/// Versions only move forward here: an older or equal version arriving late (a re-seed, a
/// message after a catch-up) is ignored.
final class SnapshotBoard: Sendable {
    enum Outcome: Sendable {
        case published(FeedSnapshot, reload: Int)
        case failed(String)
        case timedOut
    }

    private struct Waiter {
        var base: Int
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private struct State {
        var snapshot: FeedSnapshot
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>
    private let version: Atomic<Int>
    /// Every snapshot made current here, for the event streams.
    let broadcaster = SnapshotBroadcaster()

    init(_ snapshot: FeedSnapshot) {
        state = Mutex(State(snapshot: snapshot))
        version = Atomic(snapshot.version)
    }

    var current: FeedSnapshot { state.withLock { $0.snapshot } }

    var currentVersion: Int { version.load(ordering: .acquiring) }

    /// How many refreshes are waiting for another instance's reload now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Makes `snapshot` current if it is newer, and wakes the waiters it answers. Returns
    /// whether it was newer.
    @discardableResult
    func publish(_ snapshot: FeedSnapshot, reload: Int) -> Bool {
        let (woken, newer) = state.withLock { state -> ([CheckedContinuation<Outcome, Never>], Bool) in
            guard snapshot.version > state.snapshot.version else { return ([], false) }
            state.snapshot = snapshot
            version.store(snapshot.version, ordering: .releasing)
            return (take(&state) { $0.base < snapshot.version }, true)
        }
        for continuation in woken { continuation.resume(returning: .published(snapshot, reload: reload)) }
        if newer { broadcaster.publish(snapshot) }
        return newer
    }

    /// A reload on top of `version` finished without changes: its waiters get the current data.
    func unchanged(version: Int, reload: Int) {
        let (woken, snapshot) = state.withLock { state in
            (take(&state) { $0.base == version }, state.snapshot)
        }
        for continuation in woken { continuation.resume(returning: .published(snapshot, reload: reload)) }
    }

    /// A reload on top of `base` failed upstream: its waiters fail with the same message.
    func failed(base: Int, message: String) {
        let woken = state.withLock { state in take(&state) { $0.base == base } }
        for continuation in woken { continuation.resume(returning: .failed(message)) }
    }

    /// Waits until a version newer than `base` is published, the reload on `base` ends, or
    /// `timeout` passes.
    func wait(above base: Int, timeout: Duration) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let id = state.withLock { state -> UInt64? in
                if state.snapshot.version > base { return nil }
                state.nextID += 1
                state.waiters[state.nextID] = Waiter(base: base, continuation: continuation)
                return state.nextID
            }
            guard let id else {
                continuation.resume(returning: .published(current, reload: 0))
                return
            }
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: .timedOut)
    }

    private func take(_ state: inout State, where matches: (Waiter) -> Bool) -> [CheckedContinuation<
        Outcome, Never
    >] {
        let ids = state.waiters.filter { matches($0.value) }.map(\.key)
        return ids.compactMap { state.waiters.removeValue(forKey: $0)?.continuation }
    }
}
