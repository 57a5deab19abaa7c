/// Why fetching or parsing an upstream failed, in words fit for the log, `/healthz` and a `502`.
public struct UpstreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The explanation, e.g. `example.com timed out`.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
