public import Feed
public import Foundation

/// How a source's items accumulate: what a new document brings joins what the store held for
/// the source, and retention takes the oldest away.
///
/// - An item the document carries is kept as the document says it (its id never changes); if
///   its title, text, link, picture or date changed, its ``FeedItem/updatedAt`` moves to now,
///   otherwise the held item stays as it was (its `updatedAt` included).
/// - An item the document no longer carries stays (a feed's document holds its last 10–50 posts;
///   a reader keeps what it has seen), unless retention removes it: older than `keepDays` by its
///   date, or beyond `keepPerSource` items for the source (the oldest go first).
/// - An item the document carries is never removed by retention, so it cannot come back as
///   "new" on the next fetch; a document with more items than `keepPerSource` is kept whole.
/// - An empty or recovered document removes nothing.
public struct SourceHistory: Sendable, Equatable {
    /// Items a document no longer carries are removed once their date is older than this.
    public var keepDays: Int
    /// The most items kept per source; the oldest of those no document carries go first.
    public var keepPerSource: Int

    /// The defaults: 180 days, 1,000 items per source.
    public init(keepDays: Int = 180, keepPerSource: Int = 1000) {
        self.keepDays = keepDays
        self.keepPerSource = keepPerSource
    }

    /// One source's items after reading `document` (ids as the store has them), given what the
    /// store `held` for it; the document's items first, then the kept older ones, newest first.
    public func merge(held: [FeedItem], document: [FeedItem], now: Date) -> [FeedItem] {
        var heldByID: [String: FeedItem] = [:]
        heldByID.reserveCapacity(held.count)
        for item in held { heldByID[item.id] = item }
        var carried = Set<String>()
        carried.reserveCapacity(document.count)
        var result: [FeedItem] = []
        result.reserveCapacity(max(document.count, min(held.count + document.count, keepPerSource)))
        for item in document where carried.insert(item.id).inserted {
            guard let before = heldByID[item.id] else {
                result.append(item)
                continue
            }
            if before.hasSameContent(as: item) {
                result.append(before)
            } else {
                var changed = item
                changed.updatedAt = now
                result.append(changed)
            }
        }
        let room = keepPerSource - result.count
        guard room > 0 else { return result }
        let oldest = now.addingTimeInterval(-Double(keepDays) * 86_400)
        let older = held.filter { !carried.contains($0.id) && $0.createdAt >= oldest }
        if older.count <= room {
            result.append(contentsOf: older)
        } else {
            result.append(contentsOf: older.sorted(by: FeedItem.newestFirst).prefix(room))
        }
        return result
    }
}
