/// Why fetching or parsing an upstream failed, in words fit for the log, `/healthz` and a `502`.
public struct UpstreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure, for metrics and callers that treat them apart.
    public enum Kind: String, Sendable, CaseIterable {
        /// The address connected to is not allowed (``AddressPolicy``).
        case blockedAddress = "blocked_address"
        /// The `Content-Type` is not one the caller accepts.
        case contentType = "content_type"
        /// The body was larger than the limit.
        case tooLarge = "too_large"
        /// Connecting or the whole fetch took too long.
        case timeout
        /// The answer was not a `2xx` (or `304`).
        case status
        /// More redirects than allowed.
        case redirects
        /// Anything else: refused connection, DNS, TLS, parsing.
        case other
    }

    /// The explanation, e.g. `example.com timed out`.
    public var message: String
    /// What kind of failure.
    public var kind: Kind

    /// Creates an error.
    public init(_ message: String, kind: Kind = .other) {
        self.message = message
        self.kind = kind
    }

    /// The message.
    public var description: String { message }
}
