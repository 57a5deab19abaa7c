import Feed

extension FeedSnapshot {
    /// One page in feed order and the cursor of the page after it (nil on the last page).
    struct Page: Sendable {
        var entries: [Entry]
        var next: ItemsQuery.Cursor?
    }

    /// The first `limit` entries after `cursor` (from the start without one), keeping only those
    /// added after `since` when given. The cursor's position is found by binary search, so
    /// without `since` the cost depends on `limit`, not on how many items the store holds.
    func page(after cursor: ItemsQuery.Cursor?, limit: Int, since: Int? = nil) -> Page {
        var index = cursor.map(startIndex(after:)) ?? entries.startIndex
        var chosen: [Entry] = []
        chosen.reserveCapacity(max(0, min(limit, entries.count - index)))
        while index < entries.endIndex {
            let entry = entries[index]
            index += 1
            if let since, entry.addedIn <= since { continue }
            if chosen.count == limit {
                return Page(entries: chosen, next: chosen.last.map { ItemsQuery.Cursor(after: $0.item) })
            }
            chosen.append(entry)
        }
        return Page(entries: chosen, next: nil)
    }

    /// The index of the first entry that comes after `cursor` in newest-first order.
    func startIndex(after cursor: ItemsQuery.Cursor) -> Int {
        var low = entries.startIndex
        var high = entries.endIndex
        while low < high {
            let middle = low + (high - low) / 2
            if cursor.precedes(entries[middle].item) {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
