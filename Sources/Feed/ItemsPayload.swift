/// The JSON body of `GET /api/items` and `POST /api/refresh`.
enum ItemsPayload {
    /// `{"version","updatedAt","items","nextCursor"}` plus `"added"` when given.
    static func encode(_ snapshot: FeedSnapshot, query: ItemsQuery, added: [FeedSnapshot.Entry]?) -> [UInt8] {
        var page: [FeedSnapshot.Entry] = []
        page.reserveCapacity(query.limit)
        var more = false
        for entry in snapshot.entries {
            if let cursor = query.cursor, !cursor.precedes(entry.item) { continue }
            if added == nil, let since = query.since, entry.addedIn <= since { continue }
            if page.count == query.limit {
                more = true
                break
            }
            page.append(entry)
        }
        var writer = JSONWriter(capacity: 256 + page.count * 200)
        writer.raw("{\"version\":")
        writer.number(snapshot.version)
        writer.raw(",\"updatedAt\":")
        writer.string(Timestamp.iso(snapshot.updatedAt))
        writer.raw(",\"items\":")
        writer.items(page)
        writer.raw(",\"nextCursor\":")
        if more, let last = page.last {
            writer.string(ItemsQuery.Cursor(after: last.item).text)
        } else {
            writer.null()
        }
        if let added {
            writer.raw(",\"added\":")
            writer.items(added)
        }
        writer.raw("}")
        return writer.bytes
    }
}
