import Feed
import Synchronization

/// This instance's copy of the shared feed: the newest snapshot it knows (read without waiting)
/// and the refreshes waiting for another instance's reload to finish.
///
/// Positions only move forward here: an older or equal version of the same epoch arriving late
/// (a re-seed, a message after a catch-up) is ignored, and so is a message from an older epoch.
/// What Redis answers to a (re-)join is the cluster's truth and is adopted even when its epoch
/// compares older (the clocks of two instances may disagree). Every snapshot made current gets
/// the next ``FeedSnapshot/revision``.
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
    private let revision: Atomic<Int>
    /// Every snapshot made current here, for the event streams.
    let broadcaster = SnapshotBroadcaster()

    init(_ snapshot: FeedSnapshot) {
        var first = snapshot
        first.revision = 1
        state = Mutex(State(snapshot: first))
        version = Atomic(snapshot.version)
        revision = Atomic(1)
    }

    var current: FeedSnapshot { state.withLock { $0.snapshot } }

    var currentVersion: Int { version.load(ordering: .acquiring) }

    var currentRevision: Int { revision.load(ordering: .acquiring) }

    /// How many refreshes are waiting for another instance's reload now.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// Makes `snapshot` current if it comes after the current one (``FeedPosition/isAfter(_:)``),
    /// or, with `adopting` (Redis's answer to a join), whenever its epoch differs; wakes the
    /// waiters it answers. Returns whether it was made current.
    @discardableResult
    func publish(_ snapshot: FeedSnapshot, reload: Int, adopting: Bool = false) -> Bool {
        let (woken, made) = state.withLock {
            state -> ([CheckedContinuation<Outcome, Never>], FeedSnapshot?) in
            let current = state.snapshot.position
            let newEpoch = snapshot.epoch != current.epoch
            guard snapshot.position.isAfter(current) || (adopting && newEpoch) else { return ([], nil) }
            var made = snapshot
            made.revision = state.snapshot.revision + 1
            state.snapshot = made
            version.store(made.version, ordering: .releasing)
            revision.store(made.revision, ordering: .releasing)
            return (take(&state) { newEpoch || $0.base < made.version }, made)
        }
        guard let made else { return false }
        for continuation in woken { continuation.resume(returning: .published(made, reload: reload)) }
        broadcaster.publish(made)
        return true
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
