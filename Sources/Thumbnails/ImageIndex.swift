import Feed
import Synchronization

/// The current snapshot's item ids → image URLs, built once per version so a thumbnail request
/// costs a dictionary lookup, not a walk of the items.
final class ImageIndex: Sendable {
    private struct Built {
        var version: Int
        var images: [String: String]
    }

    private let store: any FeedBackend
    private let built = Mutex<Built?>(nil)

    init(store: any FeedBackend) {
        self.store = store
    }

    /// The image URL of item `id` (nil when no such item or it has none), and the version read.
    func image(of id: String) -> (url: String?, version: Int) {
        let version = store.currentVersion
        if let hit = built.withLock({ built in built?.version == version ? built : nil }) {
            return (hit.images[id], version)
        }
        let snapshot = store.current
        var images: [String: String] = [:]
        for entry in snapshot.entries {
            if let image = entry.item.image { images[entry.item.id] = image }
        }
        built.withLock { built in
            if (built?.version ?? -1) < snapshot.version {
                built = Built(version: snapshot.version, images: images)
            }
        }
        return (images[id], snapshot.version)
    }
}
