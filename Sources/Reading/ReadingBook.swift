public import Feed
public import Foundation

/// The owner's reading state — which items are read, which starred — as the surfaces (pages,
/// the JSON API, the apps API) use it.
///
/// There is one owner, so one state. Every stored change moves ``revision`` by one; the byte
/// caches key on it together with the feed's revision, and the `ETag`s of answers that show
/// marks name it, so no cache serves stale marks. Writes are stored (in the database, when
/// there is one) before they are visible and before they are published to ``changes()``.
///
/// The book does not know which items exist: callers pass ids of items the feed holds now
/// (an unknown id is the caller's `404`). Items that leave the feed take their marks with them.
public protocol ReadingBook: KeptItems {
    /// The current revision: 0 for a state never changed, one more for each stored change.
    /// Cheap (an atomic load), never waits.
    var revision: Int { get }
    /// Every item's marks now, with their revision; cheap (no copy of the table).
    var marks: ReadingMarks { get }
    /// Sets `read` and/or `starred` (nil leaves a mark as it is) on each of `ids`, as of `at`
    /// (the action's time; a change older than an item's stored ``ItemMark/changedAt`` is
    /// ignored for that item). Stores the result in one transaction, then publishes it.
    /// Returns what changed (an empty list when nothing did; the revision then stays).
    func update(_ ids: [String], read: Bool?, starred: Bool?, at: Date) throws(ReadingError) -> ReadingChange
    /// Every change stored from now on, in order.
    func changes() -> AsyncStream<ReadingChange>
}
