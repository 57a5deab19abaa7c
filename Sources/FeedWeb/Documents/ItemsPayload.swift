import Feed

/// The JSON body of `GET /api/items` and `POST /api/refresh`.
enum ItemsPayload {
    /// `{"version","updatedAt","items","nextCursor"}` plus `"added"` when given.
    static func encode(
        _ snapshot: FeedSnapshot, query: ItemsQuery, added: [FeedSnapshot.Entry]?,
        sources: (any SourceDirectory)? = nil
    ) -> [UInt8] {
        let selected = snapshot.page(
            after: query.cursor, limit: query.limit, since: added == nil ? query.since : nil)
        let page = selected.entries
        var writer = JSONWriter(capacity: 256 + page.count * 200)
        writer.openSnapshot(snapshot)
        writer.raw(",\"items\":")
        writer.items(page, sources: sources)
        writer.raw(",\"nextCursor\":")
        if let next = selected.next {
            writer.string(next.text)
        } else {
            writer.null()
        }
        if let added {
            writer.raw(",\"added\":")
            writer.items(added, sources: sources)
        }
        writer.raw("}")
        return writer.bytes
    }
}
