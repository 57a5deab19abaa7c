import Foundation

/// One entry of the feed. Text fields are data: they are escaped in HTML and returned exactly
/// in JSON.
public struct FeedItem: Sendable, Equatable, Hashable {
    /// Unique, positive identifier.
    public var id: Int
    /// Short headline.
    public var title: String
    /// Body text.
    public var body: String
    /// When the item was created upstream.
    public var createdAt: Date

    /// Creates an item.
    public init(id: Int, title: String, body: String, createdAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        self.createdAt = createdAt
    }

    /// Feed order: newest first, ties broken by the larger id, so the order is total and
    /// cursors stay stable.
    public static func newestFirst(_ lhs: FeedItem, _ rhs: FeedItem) -> Bool {
        let left = lhs.createdAtMillis
        let right = rhs.createdAtMillis
        return left != right ? left > right : lhs.id > rhs.id
    }

    /// `createdAt` in whole milliseconds: the precision of ordering and of cursors, so the two
    /// always agree.
    public var createdAtMillis: Int64 {
        Int64((createdAt.timeIntervalSince1970 * 1000).rounded(.down))
    }
}
