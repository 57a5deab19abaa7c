public import Foundation

/// The owner's marks on one item: read, starred, and when they last changed.
///
/// An item nobody marked is unread and not starred (``unmarked``). `changedAt` is the time of
/// the action that set the marks (a device's clock for a mark queued offline): a change older
/// than the one stored loses, so the last writer by the time of the action wins.
public struct ItemMark: Sendable, Hashable {
    /// Whether the owner has read it.
    public var read: Bool
    /// Whether the owner keeps it (retention never removes a starred item).
    public var starred: Bool
    /// When the marks were last set; nil for an item never marked.
    public var changedAt: Date?

    /// Creates marks.
    public init(read: Bool = false, starred: Bool = false, changedAt: Date? = nil) {
        self.read = read
        self.starred = starred
        self.changedAt = changedAt
    }

    /// An item nobody marked: unread, not starred.
    public static let unmarked = ItemMark()

    /// Whether these marks say nothing beyond ``unmarked`` (a store need not keep them).
    public var isUnmarked: Bool { !read && !starred }
}
