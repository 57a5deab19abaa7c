public import Foundation

/// A session a request's cookie belongs to: who is signed in, and the token their changes
/// must carry.
public struct ActiveSession: Sendable, Equatable {
    /// The signed-in user's name (`owner`).
    public var userName: String
    /// The session's CSRF token.
    public var csrfToken: String
    /// When the session ends unless used again (moved forward as it is used).
    public var expiresAt: Date

    /// Creates a session value.
    public init(userName: String, csrfToken: String, expiresAt: Date) {
        self.userName = userName
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
}
