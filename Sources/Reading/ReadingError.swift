/// A reading-state write that failed; nothing of it was stored.
public struct ReadingError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, for the log and the error answer.
    public var message: String
    /// Seconds a client should wait before retrying (a locked or full database), else nil.
    public var retryAfter: Int?

    /// Creates an error.
    public init(_ message: String, retryAfter: Int? = nil) {
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The message.
    public var description: String { message }
}
