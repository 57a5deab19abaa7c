public import Foundation

/// A session just made by a sign-in: what the browser is given. The cookie value is known
/// only here and to the browser; the database keeps its keyed hash.
public struct NewSession: Sendable, Equatable {
    /// The cookie's value: 256 random bits, base64url.
    public var cookieValue: String
    /// The session's CSRF token, for forms (`csrf`) and scripts (`X-CSRF-Token`).
    public var csrfToken: String
    /// When the session ends unless used (the cookie's `Expires`).
    public var expiresAt: Date

    /// Creates a session value.
    public init(cookieValue: String, csrfToken: String, expiresAt: Date) {
        self.cookieValue = cookieValue
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
}
