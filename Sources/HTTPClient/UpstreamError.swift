/// Why fetching or parsing an upstream failed, in words fit for the log, `/healthz` and a `502`.
public struct UpstreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of failure: the `reason` label of the fetch-failure metrics (feeds and
    /// pictures alike), and what callers that treat failures apart switch on.
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
        /// Refused connection, DNS, TLS or another transport failure.
        case transport
        /// What came is not usable: not a feed, invalid XML or JSON, refused entities, no item.
        case content
    }

    /// The explanation, e.g. `example.com timed out`.
    public var message: String
    /// What kind of failure.
    public var kind: Kind
    /// Seconds the upstream asked us to wait (`Retry-After` on a `429` or `503`).
    public var retryAfter: Double?

    /// Creates an error.
    public init(_ message: String, kind: Kind = .content, retryAfter: Double? = nil) {
        self.message = message
        self.kind = kind
        self.retryAfter = retryAfter
    }

    /// The message.
    public var description: String { message }
}
