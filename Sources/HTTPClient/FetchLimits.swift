/// What one upstream fetch may cost: time, bytes and redirects.
public struct FetchLimits: Sendable, Equatable {
    /// Seconds to establish the connection (TCP and TLS).
    public var connectTimeout: Double
    /// Seconds for the whole transfer, redirects included.
    public var totalTimeout: Double
    /// Largest (decoded) body accepted; counted while reading, the transfer stops past it.
    public var maxBytes: Int
    /// Redirects followed at most, each only to http or https.
    public var maxRedirects: Int
    /// The `User-Agent` header.
    public var userAgent: String

    /// Creates limits; the defaults are those of `--source`.
    public init(
        connectTimeout: Double = 5, totalTimeout: Double = 15, maxBytes: Int = 16 << 20,
        maxRedirects: Int = 5,
        userAgent: String = "pullrefresh"
    ) {
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxBytes = maxBytes
        self.maxRedirects = maxRedirects
        self.userAgent = userAgent
    }
}
