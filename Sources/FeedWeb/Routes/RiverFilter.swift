import Feed
import HTTPServer

/// `?source=KEY` or `?folder=NAME`: the part of a river a page, a list or an event stream shows,
/// resolved to the keys of its sources when the request arrives.
///
/// A folder's members change when the owner moves a feed, without a new feed version: so what
/// caches and `ETag`s key on (``tag``) names the members too, never the folder's name alone.
struct RiverFilter: Sendable, Hashable {
    /// The sources shown.
    let keys: Set<String>
    /// What the page says it shows: the source's or the folder's title.
    let title: String
    /// The query that keeps the filter on links and forms (`source=…` or `folder=…`, encoded).
    let query: String
    /// A short ASCII tag for cache keys and `ETag`s: `-s<key>`, or `-f<hash of name and members>`.
    let tag: String

    /// One source.
    init(source label: SourceLabel) {
        keys = [label.key]
        title = label.title
        query = "source=" + label.key
        tag = "-s" + label.key
    }

    /// A folder and the sources in it now.
    init(folder: String, members: [String]) {
        keys = Set(members)
        title = folder
        query = "folder=" + FormEncoding.encode(folder)
        let signature = folder + "\u{0}" + members.sorted().joined(separator: ",")
        tag = "-f" + StableHash.hex(StableHash.fnv1a(signature), digits: 16)
    }

    /// The snapshot holding only these sources' items (same version).
    func apply(to snapshot: FeedSnapshot) -> FeedSnapshot {
        if keys.count == 1, let key = keys.first { return snapshot.only(sourceKey: key) }
        return FeedSnapshot(
            version: snapshot.version, updatedAt: snapshot.updatedAt,
            entries: snapshot.entries.filter { entry in
                RiverItemID.key(of: entry.item.id).map { keys.contains(String($0)) } ?? false
            },
            epoch: snapshot.epoch, revision: snapshot.revision)
    }
}
