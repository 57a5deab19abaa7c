import Synchronization

/// One group of a fan-out (see ``StreamFanOut``): counts its streams down as the server takes their
/// bytes, and lets the publisher wait for the last one, or for a bound it sets, whichever is first.
final class BatchCountdown: Sendable {
    private struct State {
        var remaining: Int
        var done = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state: Mutex<State>

    /// A countdown from `count` streams; done at once when `count` is 0.
    init(count: Int) {
        state = Mutex(State(remaining: count, done: count <= 0))
    }

    /// Whether every stream arrived (or the bound passed).
    var isDone: Bool { state.withLock { $0.done } }

    /// One stream's bytes were taken (or the stream ended).
    func arrive() {
        state.withLock { state in
            state.remaining -= 1
            return state.remaining <= 0 ? Self.end(&state) : nil
        }?.resume()
    }

    /// The bound passed: the waiter goes on without the streams still out (a client that does
    /// not read must not hold every other client's event back).
    func expire() {
        state.withLock { Self.end(&$0) }?.resume()
    }

    /// Returns once every stream arrived or ``expire()`` was called.
    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.done { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Marks the countdown done and hands back the waiter to resume, if one waits.
    private static func end(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        state.done = true
        defer { state.waiter = nil }
        return state.waiter
    }
}
