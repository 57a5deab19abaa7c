import HTTPServer

/// The version a page of a river is at: the feed's version and the sources' status generation
/// together, since the page's status line ("2 of 14 feeds could not be reached") changes when
/// a source fails, which publishes no new feed version. Stored and cached pages follow it, so a
/// failure shows on the next request, not at the next new item.
struct PageVersion: VersionedContent {
    let store: any FeedBackend
    let sources: any SourceDirectory

    /// The feed version in the high bits, the status generation's low 16 bits below it.
    var currentVersion: Int {
        store.currentVersion &* 65_536 &+ (sources.statusGeneration & 0xFFFF)
    }
}
