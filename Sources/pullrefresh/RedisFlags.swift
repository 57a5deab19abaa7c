import RedisClient
import RedisFeed

/// What the cluster flags (`--redis*`, `--lease` and `REDIS_URL`, rows of ``FlagTable``) set.
struct RedisFlags {
    var url: RedisURL?
    var prefix = "pullrefresh:"
    var connectTimeout: Duration = .seconds(1)
    var commandTimeout: Duration = .seconds(1)
    var lease: Duration?

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

    /// `--redis` or `REDIS_URL`: errors name the one given.
    static func parseURL(_ value: FlagValue) throws(UsageError) -> RedisURL {
        do {
            return try RedisURL(value.text)
        } catch {
            throw UsageError("\(value.name): \(error.description)")
        }
    }
}
