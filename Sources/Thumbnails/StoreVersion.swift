import Feed
import HTTPServer

/// The store's version as the server's stored responses read it: a thumbnail's answer may be
/// reused while the store stays at the version its image URL was read at. (``FeedBackend`` is
/// data and knows nothing of HTTP; this adapter joins the two here, where both are used.)
struct StoreVersion: VersionedContent {
    let store: any FeedBackend

    var currentVersion: Int { store.currentVersion }
}
