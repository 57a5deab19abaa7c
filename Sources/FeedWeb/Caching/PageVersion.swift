import Feed
import HTTPServer

/// The version a page of a river is at: the store's revision and the sources' status generation
/// together, since the page's status line ("2 of 14 feeds could not be reached") changes when
/// a source fails, which publishes no new feed version. Stored and cached pages follow it, so a
/// failure shows on the next request, not at the next new item.
struct PageVersion: VersionedContent {
    let store: any FeedBackend
    let sources: any SourceDirectory

    /// The store's revision (see ``StoreRevisions``) in the high bits, the status generation's
    /// low 16 bits below it.
    var currentVersion: Int {
        Self.combine(revision: store.currentRevision, generation: sources.statusGeneration)
    }

    /// The page version of a snapshot at `revision` rendered with the status at `generation`.
    static func combine(revision: Int, generation: Int) -> Int {
        revision &* 65_536 &+ (generation & 0xFFFF)
    }
}
