import Feed
import Foundation
import Synchronization

/// A feed backend whose snapshot the test replaces by hand, the way a Redis instance adopts the
/// cluster's snapshot after Redis was emptied and seeded again: a new epoch whose version numbers
/// start over (so a number may repeat), while the instance's revision only ever grows.
final class EpochStore: FeedBackend, Sendable {
    private let held: Mutex<FeedSnapshot>

    /// Version `version` of `epoch`, holding `items` (all added in it), at revision 1.
    init(epoch: Int, version: Int, items: [FeedItem]) {
        held = Mutex(Self.snapshot(epoch: epoch, version: version, items: items, revision: 1))
    }

    /// Makes version `version` of `epoch` with `items` current, at the next revision.
    func adopt(epoch: Int, version: Int, items: [FeedItem]) {
        held.withLock { held in
            held = Self.snapshot(epoch: epoch, version: version, items: items, revision: held.revision + 1)
        }
    }

    private static func snapshot(epoch: Int, version: Int, items: [FeedItem], revision: Int) -> FeedSnapshot {
        FeedSnapshot(
            version: version, updatedAt: Date(timeIntervalSince1970: 1_700_000_000),
            entries: items.map { FeedSnapshot.Entry(item: $0, addedIn: version) }, epoch: epoch,
            revision: revision)
    }

    var current: FeedSnapshot { held.withLock { $0 } }
    var currentVersion: Int { current.version }
    var currentRevision: Int { current.revision }
    var cacheTag: String { current.position.tag }
    var health: FeedHealth { .ok }

    func reload() async throws(FeedError) -> ReloadOutcome {
        throw FeedError("the test replaces this store's snapshots by hand")
    }

    func publications() -> AsyncStream<FeedSnapshot> { AsyncStream { $0.finish() } }
}
