/// How to reach Redis and how the shared feed uses it.
public struct RedisConfiguration: Sendable {
    /// Where Redis is.
    public var url: RedisURL
    /// Prefix of every key and channel, so several feeds can share one Redis.
    public var prefix: String
    /// Bound on establishing a connection.
    public var connectTimeout: Duration
    /// Bound on any one command (and on a silent subscriber connection before it is replaced).
    public var commandTimeout: Duration
    /// How long a reload lease is held at most; a holder that takes longer loses its commit.
    public var lease: Duration

    /// Creates a configuration with the usual defaults: 1 s connect, 1 s commands, 5 s lease.
    public init(
        url: RedisURL, prefix: String = "pullrefresh:", connectTimeout: Duration = .seconds(1),
        commandTimeout: Duration = .seconds(1), lease: Duration = .seconds(5)
    ) {
        self.url = url
        self.prefix = prefix
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.lease = lease
    }

    /// The default lease for a reload delay: three delays plus a second for the upstream itself.
    public static func defaultLease(reloadDelay: Duration) -> Duration {
        reloadDelay * 3 + .seconds(1)
    }
}
