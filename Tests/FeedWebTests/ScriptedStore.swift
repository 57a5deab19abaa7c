import Foundation
import HTTPServer
import Synchronization
import TestSupport

@testable import Feed

/// A feed backend whose versions the test publishes by hand, and whose next read of ``current``
/// can run a step of the test at that exact moment (a publication while a stream opens).
final class ScriptedStore: FeedBackend, Sendable {
    private struct State {
        var snapshot: FeedSnapshot
        var onNextRead: (@Sendable () -> FeedSnapshot)?
    }

    private let state: Mutex<State>
    private let broadcaster = SnapshotBroadcaster()

    /// A store at version 1 of `epoch` with `items` items.
    init(epoch: Int = 1_000_000, items: Int = 3) {
        state = Mutex(State(snapshot: Self.snapshot(version: 1, epoch: epoch, items: items)))
    }

    /// Version `version` of `epoch`: one item added in each version up to it, `items` at first.
    static func snapshot(version: Int, epoch: Int, items: Int = 3) -> FeedSnapshot {
        let first = (0..<items).map { FeedSnapshot.Entry(item: FeedSamples.item($0), addedIn: 1) }
        let later = (2...max(2, version)).prefix(max(0, version - 1)).map {
            FeedSnapshot.Entry(item: FeedSamples.item(100 + $0), addedIn: $0)
        }
        return FeedSnapshot(
            version: version, updatedAt: Date(timeIntervalSince1970: 1_700_000_000),
            entries: later.reversed() + first, epoch: epoch)
    }

    /// What the store holds, without running the hook.
    var held: FeedSnapshot { state.withLock { $0.snapshot } }

    var current: FeedSnapshot {
        let (snapshot, hook) = state.withLock { state in
            defer { state.onNextRead = nil }
            return (state.snapshot, state.onNextRead)
        }
        return hook?() ?? snapshot
    }

    var currentVersion: Int { held.version }
    var cacheTag: String { held.position.tag }
    var health: FeedHealth { .ok }

    func reload() async throws(FeedError) -> ReloadOutcome {
        throw FeedError("a scripted store does not reload")
    }

    func publications() -> AsyncStream<FeedSnapshot> { broadcaster.subscribe() }

    /// Makes `snapshot` current, then tells the listeners (the order of the real stores).
    func publish(_ snapshot: FeedSnapshot) {
        state.withLock { $0.snapshot = snapshot }
        broadcaster.publish(snapshot)
    }

    /// Runs `hook` inside the next read of ``current``, which answers what it returns.
    func onNextRead(_ hook: @escaping @Sendable () -> FeedSnapshot) {
        state.withLock { $0.onNextRead = hook }
    }
}
