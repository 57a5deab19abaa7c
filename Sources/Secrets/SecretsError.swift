/// A failure of libsodium that the caller reports (the only one today: not enough memory for a
/// password hash).
public struct SecretsError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What failed, as one line.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
