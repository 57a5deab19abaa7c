import Synchronization

/// At most a few password verifications at once: each holds 64 MiB and ~0.1 s of a core, so
/// a hundred sign-ins at once would want 6.4 GB. A sign-in takes a slot or waits a little
/// for one (polling every 20 ms: slots free within ~0.1 s), then gives up.
final class VerificationSlots: Sendable {
    private struct State {
        var inFlight = 0
        var peak = 0
    }

    private let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The most verifications that ever ran at once (tests check the bound).
    var peak: Int { state.withLock { $0.peak } }

    /// Takes a slot, waiting up to `wait`; false when none freed in time or the task was
    /// cancelled.
    func acquire(waiting wait: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while true {
            let taken = state.withLock { state in
                guard state.inFlight < capacity else { return false }
                state.inFlight += 1
                state.peak = max(state.peak, state.inFlight)
                return true
            }
            if taken { return true }
            // A cancelled task's sleep returns at once: without this check it would spin.
            if clock.now >= deadline || Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Gives a slot back.
    func release() {
        state.withLock { $0.inFlight -= 1 }
    }
}
