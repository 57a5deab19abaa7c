/// Why talking to Redis failed. Messages are safe to log and to show (they never contain the
/// password).
public enum RedisError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The server could not be reached, or the connection broke or timed out.
    case unreachable(String)
    /// Redis answered with an error reply (`-ERR ...`, `-NOSCRIPT ...`, `-WRONGPASS ...`).
    case server(String)
    /// Redis answered, but not with the shape this code expects.
    case unexpectedReply(String)
    /// A `--redis` URL that cannot be used.
    case badURL(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .unreachable(let message): "unreachable: \(message)"
        case .server(let message): "error reply: \(message)"
        case .unexpectedReply(let message): "unexpected reply: \(message)"
        case .badURL(let message): message
        }
    }
}
