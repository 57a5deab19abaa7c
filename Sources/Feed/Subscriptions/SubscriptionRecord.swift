public import Foundation

/// One row of the subscriptions as kept: a source of the river with the person's title and
/// folder, who added it, and where it sits in the order sources were added in.
public struct SubscriptionRecord: Sendable, Equatable {
    /// The source key (``SourceKey/of(_:)`` of ``url``).
    public var key: String
    /// The feed's URL.
    public var url: URL
    /// The person's (or the OPML's) title, nil for the feed's own.
    public var title: String?
    /// The folder (one level), nil for none.
    public var folder: String?
    /// Who added it.
    public var origin: SubscriptionOrigin
    /// Its place in the order sources were added in (assigned by the store, never reused).
    public var position: Int
    /// When it was added.
    public var addedAt: Date

    /// Creates a record; the key is derived from `url`.
    public init(
        url: URL, title: String? = nil, folder: String? = nil, origin: SubscriptionOrigin, position: Int = 0,
        addedAt: Date = Date()
    ) {
        key = SourceKey.of(url)
        self.url = url
        self.title = title
        self.folder = folder
        self.origin = origin
        self.position = position
        self.addedAt = addedAt
    }
}
