import Feed
import Reading

/// The pieces of the API's JSON documents that several of them share: how a snapshot's body
/// begins, a river source, an item, a list of items.
extension JSONWriter {
    /// `{"version":N,"updatedAt":"…","epoch":"…"`: how every body that reports a snapshot begins (the items
    /// API, the refresh answer, the event stream's events); the caller adds the rest and `}`.
    mutating func openSnapshot(_ snapshot: FeedSnapshot) {
        raw("{\"version\":")
        number(snapshot.version)
        raw(",\"updatedAt\":")
        string(Timestamp.iso(snapshot.updatedAt))
        raw(",\"epoch\":")
        string(snapshot.position.tag)
    }

    /// `{"key":"…","title":"…"`: how every description of a river source begins; the caller
    /// adds the rest and `}`.
    mutating func openSource(_ label: SourceLabel) {
        raw("{\"key\":")
        string(label.key)
        raw(",\"title\":")
        string(label.title)
    }

    /// One item; `source` (a river's) adds `"source":{"key","title"}`, `mark` (the owner's,
    /// when the request may see them) adds `"read"` and `"starred"`.
    mutating func item(_ entry: FeedSnapshot.Entry, source: SourceLabel? = nil, mark: ItemMark? = nil) {
        raw("{\"id\":")
        string(entry.item.id)
        raw(",\"title\":")
        string(entry.item.title)
        raw(",\"body\":")
        string(entry.item.body)
        if let url = entry.item.url {
            raw(",\"url\":")
            string(url)
        }
        if let image = entry.item.image {
            raw(",\"image\":")
            string(image)
        }
        raw(",\"createdAt\":")
        string(Timestamp.iso(entry.item.createdAt))
        if let updatedAt = entry.item.updatedAt {
            raw(",\"updatedAt\":")
            string(Timestamp.iso(updatedAt))
        }
        if let author = entry.item.author {
            raw(",\"author\":")
            string(author)
        }
        raw(",\"version\":")
        number(entry.addedIn)
        if let source {
            raw(",\"source\":")
            openSource(source)
            raw("}")
        }
        if let mark {
            raw(mark.read ? ",\"read\":true" : ",\"read\":false")
            raw(mark.starred ? ",\"starred\":true" : ",\"starred\":false")
        }
        raw("}")
    }

    /// A JSON array of items; `sources` labels a river's items; `marks` adds each item's
    /// `"read"` and `"starred"`.
    mutating func items(
        _ entries: some Collection<FeedSnapshot.Entry>, sources: (any SourceDirectory)? = nil,
        marks: ReadingMarks? = nil
    ) {
        raw("[")
        var first = true
        for entry in entries {
            if !first { raw(",") }
            first = false
            item(entry, source: sources?.label(forItemID: entry.item.id), mark: marks?[entry.item.id])
        }
        raw("]")
    }
}
