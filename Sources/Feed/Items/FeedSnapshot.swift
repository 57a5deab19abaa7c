public import Foundation

/// An immutable view of the store at one version; readers hold it without locks.
public struct FeedSnapshot: Sendable {
    /// An item with the version in which it first appeared (what `since` filters on).
    public struct Entry: Sendable, Equatable {
        /// The item.
        public var item: FeedItem
        /// The store version that first contained this item's id.
        public var addedIn: Int

        /// Creates an entry.
        public init(item: FeedItem, addedIn: Int) {
            self.item = item
            self.addedIn = addedIn
        }
    }

    /// Grows by one on every reload that changed the items; never decreases within an epoch.
    public var version: Int
    /// When this version sequence began, in microseconds since 1970: the in-memory store's
    /// start, or the moment a Redis cluster's feed was (re-)seeded into an empty Redis. A version
    /// number names one snapshot only together with its epoch (see ``position``).
    public var epoch: Int
    /// This process's count of snapshots it made current, for its caches: unlike ``version`` it
    /// never repeats, even when a Redis instance adopts a new epoch whose numbers start lower.
    public var revision: Int
    /// When the last successful reload finished (even one that changed nothing).
    public var updatedAt: Date
    /// Newest first.
    public var entries: [Entry]

    /// Creates a snapshot; `revision` defaults to the version (true for a single version sequence).
    public init(version: Int, updatedAt: Date, entries: [Entry], epoch: Int = 0, revision: Int? = nil) {
        self.version = version
        self.epoch = epoch
        self.revision = revision ?? version
        self.updatedAt = updatedAt
        self.entries = entries
    }

    /// The epoch and version together: what event ids and `ETag`s name.
    public var position: FeedPosition { FeedPosition(epoch: epoch, version: version) }

    /// The items, newest first.
    public var items: [FeedItem] { entries.map(\.item) }

    /// Items that first appeared after version `since`, newest first.
    public func added(since: Int) -> [FeedItem] {
        entries.lazy.filter { $0.addedIn > since }.map(\.item)
    }

    /// The same version holding only the items of one river source (their ids start with
    /// `<key>:`); what `?source=` pages and lists read.
    public func only(sourceKey key: String) -> FeedSnapshot {
        let prefix = key + String(RiverItemID.separator)
        return FeedSnapshot(
            version: version, updatedAt: updatedAt, entries: entries.filter { $0.item.id.hasPrefix(prefix) },
            epoch: epoch, revision: revision)
    }
}
