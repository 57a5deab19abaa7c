import Feed
import HTTPServer
import Synchronization

/// The current snapshot's item ids → image URLs, built once per store revision so a thumbnail
/// request costs a dictionary lookup, not a walk of the items.
///
/// Keyed on the revision, not the version: a Redis instance that adopts a new epoch (Redis
/// emptied and seeded again) may see a version number again with other items, or other
/// pictures for the same ids; its revision never repeats. As ``VersionedContent`` it is what a
/// stored thumbnail answer depends on: the picture of an id at that revision.
final class ImageIndex: VersionedContent {
    private struct Built {
        var revision: Int
        var images: [String: String]
    }

    private let store: any FeedBackend
    private let built = Mutex<Built?>(nil)

    init(store: any FeedBackend) {
        self.store = store
    }

    /// The store's revision: an id's picture can change only when it moves.
    var currentVersion: Int { store.currentRevision }

    /// The image URL of item `id` (nil when no such item or it has none), and the revision read.
    func image(of id: String) -> (url: String?, revision: Int) {
        let revision = store.currentRevision
        if let hit = built.withLock({ built in built?.revision == revision ? built : nil }) {
            return (hit.images[id], revision)
        }
        let snapshot = store.current
        var images: [String: String] = [:]
        for entry in snapshot.entries {
            if let image = entry.item.image { images[entry.item.id] = image }
        }
        built.withLock { built in
            if (built?.revision ?? -1) < snapshot.revision {
                built = Built(revision: snapshot.revision, images: images)
            }
        }
        return (images[id], snapshot.revision)
    }
}
