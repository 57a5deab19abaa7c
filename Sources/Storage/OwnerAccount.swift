public import Foundation

/// The owner as the database holds them: a `users` row.
public struct OwnerAccount: Sendable, Equatable {
    /// The row's id (sessions and tokens point to it).
    public var id: Int64
    /// The name, `owner` for the one owner made by `pullrefresh owner set-password`.
    public var name: String
    /// The Argon2id hash string of the password.
    public var passwordHash: String
    /// When the password was last set.
    public var updatedAt: Date
}
