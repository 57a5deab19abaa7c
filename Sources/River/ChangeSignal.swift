import Synchronization

/// A count that grows at each change, and a wait for the next one: how the river wakes the
/// schedule when its members change (a new member's next fetch may be sooner than the sleep).
final class ChangeSignal: Sendable {
    private struct State {
        var count = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Changes so far.
    var count: Int { state.withLock { $0.count } }

    /// Counts a change and wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.count += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the count passed `seen`, or the task is cancelled.
    func wait(after seen: Int) async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.count > seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
