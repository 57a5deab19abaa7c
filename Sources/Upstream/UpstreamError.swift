/// Why fetching or parsing an upstream failed, in words fit for the log, `/healthz` and a `502`.
public struct UpstreamError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The explanation, e.g. `example.com timed out`.
    public var message: String
    /// The kind of failure, the label of `pullrefresh_source_failures_total`.
    public var reason: Reason
    /// Seconds the upstream asked us to wait (`Retry-After` on a `429` or `503`).
    public var retryAfter: Double?

    /// What kind of failure it was.
    public enum Reason: String, Sendable, CaseIterable {
        /// Connect or whole-fetch timeout.
        case timeout
        /// Refused connection, DNS, TLS or another transport failure.
        case transport
        /// An HTTP status other than `2xx`/`304`.
        case http
        /// Too many redirects, or a body past the size cap.
        case limit
        /// Not a feed, invalid XML or JSON, refused entities, no usable item.
        case content
    }

    /// Creates an error.
    public init(_ message: String, reason: Reason = .content, retryAfter: Double? = nil) {
        self.message = message
        self.reason = reason
        self.retryAfter = retryAfter
    }

    /// The message.
    public var description: String { message }
}
