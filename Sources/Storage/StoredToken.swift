public import Foundation

/// An app token as the database holds it: its name and dates; the token itself is stored only
/// as its keyed hash.
public struct StoredToken: Sendable, Equatable {
    /// The owner it acts for.
    public var userID: Int64
    /// The name given at `owner token create NAME`, unique per owner.
    public var name: String
    /// When it was made.
    public var createdAt: Date
    /// When a request last used it (nil: never).
    public var lastUsedAt: Date?
}
