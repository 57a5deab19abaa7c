import RedisClient
import RedisFeed

/// The `--redis*` and `--lease` flags (and `REDIS_URL`): kept apart from the other flags so the
/// cluster options read as one block.
struct RedisFlags {
    static let names: Set<String> = [
        "--redis", "--redis-prefix", "--redis-connect-timeout", "--redis-timeout", "--lease",
    ]

    static let usage = """
          --redis URL            Share one feed through Redis: redis://[:password@]host[:port][/db]
                                 (or $REDIS_URL); without it the feed lives in this process
          --redis-prefix P       Prefix of every Redis key and channel (default pullrefresh:)
          --redis-connect-timeout D  Bound on connecting to Redis (default 1s)
          --redis-timeout D      Bound on one Redis command; a refresh answers 503 past it (default 1s)
          --lease D              Longest reload a cluster lease covers (default 3 x reload delay + 1s)
        """

    var url: RedisURL?
    var prefix = "pullrefresh:"
    var connectTimeout: Duration = .seconds(1)
    var commandTimeout: Duration = .seconds(1)
    var lease: Duration?

    /// Reads `REDIS_URL`; `--redis` given later wins.
    mutating func read(environment: [String: String]) throws(UsageError) {
        if let text = environment["REDIS_URL"], !text.isEmpty {
            url = try Self.parseURL(text, name: "REDIS_URL")
        }
    }

    mutating func apply(_ flag: String, value: String) throws(UsageError) {
        switch flag {
        case "--redis": url = try Self.parseURL(value, name: flag)
        case "--redis-prefix":
            guard !value.isEmpty, !value.contains(where: { $0.isWhitespace }) else {
                throw UsageError("--redis-prefix must be non-empty without spaces, got '\(value)'")
            }
            prefix = value
        case "--redis-connect-timeout": connectTimeout = try Self.positive(value, flag: flag)
        case "--redis-timeout": commandTimeout = try Self.positive(value, flag: flag)
        default: lease = try Self.positive(value, flag: flag)
        }
    }

    /// A lease shorter than the reload delay would expire under every reload and refuse its commit.
    func validate(reloadDelay: Duration) throws(UsageError) {
        if let lease, lease <= reloadDelay {
            throw UsageError(
                "--lease must be longer than --reload-delay (a reload would always lose its lease)")
        }
    }

    /// The configuration when `--redis`/`REDIS_URL` was given.
    func configuration(reloadDelay: Duration) -> RedisConfiguration? {
        guard let url else { return nil }
        return RedisConfiguration(
            url: url, prefix: prefix, connectTimeout: connectTimeout, commandTimeout: commandTimeout,
            lease: lease ?? RedisConfiguration.defaultLease(reloadDelay: reloadDelay))
    }

    private static func parseURL(_ text: String, name: String) throws(UsageError) -> RedisURL {
        do {
            return try RedisURL(text)
        } catch {
            throw UsageError("\(name): \(error.description)")
        }
    }

    private static func positive(_ text: String, flag: String) throws(UsageError) -> Duration {
        let value = try Configuration.duration(text, flag: flag)
        guard value > .zero else { throw UsageError("\(flag) must be more than 0, got '\(text)'") }
        return value
    }
}
