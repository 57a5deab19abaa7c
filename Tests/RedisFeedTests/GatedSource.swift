import Feed
import Synchronization

/// A source that adds one item per fetch and counts fetches; with `gated`, each fetch waits
/// until the test calls `open()`, which makes "a reload is in flight" an observable state
/// rather than a timing guess. Fetches can be told to fail.
final class GatedSource: FeedSource, Sendable {
    private struct State {
        var fetches = 0
        var failing = false
        var unchanged = false
        var open = true
        var parked: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(gated: Bool = false) {
        state = Mutex(State(open: !gated))
    }

    var fetchCount: Int { state.withLock { $0.fetches } }

    func set(failing: Bool = false, unchanged: Bool = false) {
        state.withLock {
            $0.failing = failing
            $0.unchanged = unchanged
        }
    }

    /// Lets every parked and future fetch through.
    func open() {
        let parked = state.withLock { state in
            state.open = true
            defer { state.parked = [] }
            return state.parked
        }
        for continuation in parked { continuation.resume() }
    }

    /// Waits until a fetch is parked at the gate.
    func waitUntilFetching() async {
        while state.withLock({ $0.parked.isEmpty }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                state.fetches += 1
                if state.open { return true }
                state.parked.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        let (failing, unchanged, count) = state.withLock { ($0.failing, $0.unchanged, $0.fetches) }
        if failing { throw FeedError("upstream is down") }
        if unchanged { return current }
        let next = (current.compactMap { Int($0.id) }.max() ?? 0) + 1
        return [StoreFixtures.item(next, minute: 1000 + count)] + current
    }
}
