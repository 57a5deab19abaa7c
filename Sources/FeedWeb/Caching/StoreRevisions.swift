import Feed
import HTTPServer

/// The store as the server's stored responses see it: content at the store's revision, not its
/// version, so a response stored before a Redis instance adopted a new epoch (whose version
/// numbers may repeat the old one's) is never sent after it.
struct StoreRevisions: VersionedContent {
    let store: any FeedBackend

    var currentVersion: Int { store.currentRevision }
}
