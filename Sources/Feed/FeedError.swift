/// Why a reload failed. The store keeps serving its last good snapshot.
public struct FeedError: Error, Equatable, CustomStringConvertible, Sendable {
    /// A client-safe explanation, e.g. `data file feed.json: items[2].title must be a string`.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
