/// Why a reload failed. The store keeps serving its last good snapshot.
public struct FeedError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A client-safe explanation, e.g. `data file feed.json: items[2].title must be a string`.
    public var message: String
    /// Set when the store's backend (not the upstream) is unavailable: seconds a client should
    /// wait before retrying, sent as `Retry-After` with a `503`.
    public var retryAfter: Int?

    /// Creates an error; `retryAfter` marks the backend as unavailable.
    public init(_ message: String, retryAfter: Int? = nil) {
        self.message = message
        self.retryAfter = retryAfter
    }

    /// The message.
    public var description: String { message }
}
