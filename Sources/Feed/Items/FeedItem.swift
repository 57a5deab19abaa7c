public import Foundation

/// One entry of the feed. Text fields are data: they are escaped in HTML and returned exactly
/// in JSON.
public struct FeedItem: Sendable, Equatable, Hashable {
    /// Unique, opaque identifier: 1–256 characters (a feed's GUID, URL or tag; a data file's
    /// integer ids as their decimal text).
    public var id: String
    /// Short headline.
    public var title: String
    /// Body text.
    public var body: String
    /// When the item was created upstream.
    public var createdAt: Date
    /// The item's page upstream, when the source has one: an absolute `http`/`https` URL.
    public var url: String?
    /// The item's picture upstream, when the source names one: an absolute `http`/`https` URL.
    /// Data only: the page never links it directly (thumbnails go through the server).
    public var image: String?
    /// When this store last saw the item change in place (same id, another title, text, link,
    /// picture or date); nil while it is as first seen. The id never changes.
    public var updatedAt: Date?
    /// The item's full content as sanitized HTML (the safe subset `FeedParsing`'s sanitizer
    /// writes: no script, no styles, no event handlers, only `http`/`https`/`mailto` links,
    /// pictures as absolute `http`/`https` URLs the server proxies); nil when the feed gave only
    /// text, or for items stored before content was kept. ``body`` stays the plain text the list
    /// shows.
    public var content: String?
    /// Who wrote it, as the feed names them (plain text, at most 200 characters); nil if unnamed.
    public var author: String?

    /// The longest id accepted.
    public static let maxIDLength = 256

    /// Creates an item.
    public init(
        id: String, title: String, body: String, createdAt: Date, url: String? = nil, image: String? = nil,
        updatedAt: Date? = nil, content: String? = nil, author: String? = nil
    ) {
        self.id = id
        self.title = title
        self.body = body
        self.createdAt = createdAt
        self.url = url
        self.image = image
        self.updatedAt = updatedAt
        self.content = content
        self.author = author
    }

    /// Whether `other` says the same as this item: every field but ``updatedAt``.
    public func hasSameContent(as other: FeedItem) -> Bool {
        id == other.id && title == other.title && body == other.body && createdAt == other.createdAt
            && url == other.url && image == other.image && content == other.content && author == other.author
    }

    /// Feed order: newest first, ties broken by the larger id (compared by UTF-8 bytes), so the
    /// order is total and cursors stay stable.
    public static func newestFirst(_ lhs: FeedItem, _ rhs: FeedItem) -> Bool {
        let left = lhs.createdAtMillis
        let right = rhs.createdAtMillis
        return left != right ? left > right : rhs.id.utf8.lexicographicallyPrecedes(lhs.id.utf8)
    }

    /// `createdAt` in whole milliseconds: the precision of ordering and of cursors, so the two
    /// always agree.
    public var createdAtMillis: Int64 {
        Int64((createdAt.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
