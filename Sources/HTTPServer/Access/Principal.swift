/// Who sent a request, as the ``AccessGate`` found out: what handlers read to show the owner's
/// own things and to put the CSRF token into the forms they render.
public struct Principal: Sendable, Equatable {
    /// How the request proved who it is.
    public enum Credential: Sendable, Equatable {
        /// A session cookie from signing in with the password (browsers).
        case session
        /// An app token (`Authorization: Bearer …` or an app API's own header).
        case token
    }

    /// The account's name (`owner` while there is one).
    public var name: String
    /// How it was authenticated.
    public var credential: Credential
    /// The session's CSRF token, for forms and scripts; nil for tokens (no cookie, no CSRF).
    public var csrfToken: String?

    /// Creates a principal.
    public init(name: String, credential: Credential, csrfToken: String? = nil) {
        self.name = name
        self.credential = credential
        self.csrfToken = csrfToken
    }
}
