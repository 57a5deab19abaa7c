/// A gate handlers wait on; opening it releases every waiter. Lets tests hold requests pending
/// and assert ordering without timing.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private(set) var waiting = 0

    func wait() async {
        if isOpen { return }
        waiting += 1
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    /// Polls until `count` handlers are waiting (bounded, so a broken server fails the test).
    func waitForWaiters(_ count: Int) async -> Bool {
        for _ in 0..<2000 {
            if waiting >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}
