/// The sources behind a river of feeds, for the routes: their reports (`/api/sources`,
/// `/healthz`, the page's status line) and which source an item id belongs to.
///
/// A river's item ids are `<source key>:<the feed's own id>`, so the label of an item is found
/// from its id alone: nothing about sources is stored with the items (nor in the Redis
/// snapshot), and every instance configured with the same sources labels them alike.
public protocol SourceDirectory: Sendable {
    /// Every source, in configuration order.
    var reports: [SourceReport] { get }
    /// Grows whenever a source starts or stops failing: the page's status line is cached per
    /// feed version *and* this value, since a failure publishes no new version.
    var statusGeneration: Int { get }
    /// The source of an item id, or nil when the id does not belong to a known source.
    func label(forItemID id: String) -> SourceLabel?
    /// The label of the source with `key`, or nil when there is none (validates `?source=`).
    func label(forKey key: String) -> SourceLabel?
}

/// How a river joins a source's key to the feed's own id.
public enum RiverItemID {
    /// The separator between the key and the feed's id (keys never contain it).
    public static let separator: Character = ":"

    /// `<key>:<id>`; when that would pass ``FeedItem/maxIDLength``, the feed's id is cut and
    /// ends in `#` and 16 hex digits of its hash, so long ids stay unique and stable.
    public static func join(key: String, id: String) -> String {
        let joined = key + String(separator) + id
        guard joined.count > FeedItem.maxIDLength else { return joined }
        let digest = "#" + StableHash.hex(StableHash.fnv1a(id), digits: 16)
        let room = FeedItem.maxIDLength - key.count - 1 - digest.count
        return key + String(separator) + String(id.prefix(room)) + digest
    }

    /// The feed's own id in a river item id (as ``join(key:id:)`` left it).
    public static func feedID(of id: String) -> Substring {
        guard let colon = id.firstIndex(of: separator) else { return id[...] }
        return id[id.index(after: colon)...]
    }

    /// The key part of a river item id, or nil when it has none.
    public static func key(of id: String) -> Substring? {
        guard let colon = id.firstIndex(of: separator) else { return nil }
        return id[..<colon]
    }
}
