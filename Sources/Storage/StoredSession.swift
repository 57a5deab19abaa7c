public import Foundation

/// A signed-in browser's session as the database holds it: found by the keyed hash of its
/// cookie value, never the value itself.
public struct StoredSession: Sendable, Equatable {
    /// The owner it belongs to.
    public var userID: Int64
    /// That owner's name.
    public var userName: String
    /// The token its forms and scripts must send back with every change.
    public var csrfToken: String
    /// When it was made (at sign-in).
    public var createdAt: Date
    /// When it was last seen (updated at most once per ``OwnerRecords`` touch interval).
    public var lastSeenAt: Date
    /// When it ends unless used again.
    public var expiresAt: Date
}
