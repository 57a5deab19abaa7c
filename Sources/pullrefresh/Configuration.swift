import Database
import Feed
import FeedParsing
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Logging
import River

/// Everything `pullrefresh` (serve mode) takes from flags and the environment.
struct Configuration {
    var server = ServerOptions()
    var quiet = false
    var reloadDelay: Duration = .seconds(1)
    var seed: UInt64 = 42
    var maxItems = 500
    /// Whether `--max-items` was given (its default is 100,000 with `--database`).
    var maxItemsGiven = false
    /// `--database FILE`: the store of record; nil keeps the feed in memory only.
    var database: String?
    /// `--database-sync normal|full`: when a commit waits for the disk.
    var databaseSync = DatabaseConnection.Synchronous.normal
    /// `--keep-days` and `--keep-per-source`: how long a river's items are kept once no document
    /// carries them.
    var history = SourceHistory()
    var pageSize = PageRenderer.defaultPageSize
    var dataFile: String?
    /// `--source` (repeatable) and `--sources FILE`: the feeds of the river, in order.
    var subscriptions: [Subscription] = []
    /// `--sources FILE`, read after all flags (one line on stderr and exit 2 when bad).
    var subscriptionFile: String?
    /// `--source-concurrency`: fetches of one reload running at once.
    var sourceConcurrency = 16
    /// `--refresh-every`: the schedule's base interval; nil = off. Defaults to 15 minutes with
    /// sources or `--database` (without `--data`), off otherwise.
    var refreshEvery: Duration?
    /// Whether `--refresh-every` was given (its default depends on sources).
    var refreshEveryGiven = false
    var sourceLimits = FetchLimits()
    /// Whether `--reload-delay` was given (its default is 0 with sources).
    var reloadDelayGiven = false
    var templates = "Templates"
    var publicDirectory = "Public"
    var showHelp = false
    var showVersion = false
    /// `--help-markdown`: print the flag reference of docs/configuration.md.
    var showMarkdown = false
    var tlsCertificate: String?
    var tlsKey: String?
    var metrics = true
    var logFormat = LogFormat.text
    var redis = RedisFlags()
    var heartbeat: Duration = .seconds(15)
    /// `--image-cache-bytes`: the bound of the thumbnail cache.
    var imageCacheBytes = 32 << 20
    /// `--allow-private-images`: thumbnails may fetch from private addresses (tests only).
    var allowPrivateImages = false
    /// `--allow-private-feeds`: feeds the owner adds (and discovery) may reach private addresses.
    var allowPrivateFeeds = false

    /// The addresses feeds the owner adds may be fetched from (discovery, probes, redirects and
    /// every later fetch): public only unless `--allow-private-feeds`. The operator's own
    /// `--source`/`--sources` are fetched without a policy.
    var ownerFeedPolicy: AddressPolicy { allowPrivateFeeds ? .any : .publicOnly }
    /// `--public-river`: anyone may read the river and its read-only API while an owner is set.
    var publicRiver = false
    /// `--trust-proxy`: the reverse proxies whose `X-Forwarded-For`/`-Proto` are believed.
    var trustedProxies: [String] = []

    /// Reads the flag table (``FlagTable``) from the arguments (without the program name) and the
    /// environment, then checks what spans several flags.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> Configuration
    {
        var config = Configuration()
        try FlagParser.parse(arguments, environment: environment, into: &config)
        try config.checkTLSFlags()
        if let path = config.subscriptionFile {
            do {
                config.subscriptions += try SubscriptionList.read(path: path)
            } catch {
                throw UsageError("--sources \(error.message)")
            }
        }
        if !config.subscriptions.isEmpty {
            if config.dataFile != nil { throw UsageError("--source and --data cannot be used together") }
            if !config.reloadDelayGiven { config.reloadDelay = .zero }
            if !config.refreshEveryGiven { config.refreshEvery = .seconds(15 * 60) }
            if let (first, second) = River.duplicateKey(in: config.subscriptions) {
                if SourceKey.normalized(first.url) != SourceKey.normalized(second.url) {
                    throw UsageError("sources \(first.url) and \(second.url) have the same key; remove one")
                }
                // The same feed twice (a --source also in the OPML file): keep the first.
                var seen = Set<String>()
                config.subscriptions = config.subscriptions.filter {
                    seen.insert(SourceKey.of($0.url)).inserted
                }
            }
            guard config.subscriptions.count <= SubscriptionList.maxSources else {
                throw UsageError(
                    "at most \(SubscriptionList.maxSources) sources, got \(config.subscriptions.count)")
            }
        } else if config.database != nil, config.dataFile == nil {
            // The river over the database's subscriptions: its schedule runs even while empty,
            // so feeds added from the phone are refreshed.
            if !config.refreshEveryGiven { config.refreshEvery = .seconds(15 * 60) }
        } else if config.refreshEvery != nil {
            throw UsageError("--refresh-every needs --source, --sources or --database")
        }
        if config.database != nil {
            if config.redis.url != nil {
                throw UsageError(
                    "--database and --redis cannot be used together: a cluster keeps its feed in Redis, shared "
                        + "by its instances, and a database file belongs to one process")
            }
            if !config.maxItemsGiven { config.maxItems = 100_000 }
        } else if config.publicRiver {
            throw UsageError(
                "--public-river needs --database: without one there is no owner, and the river is open to everyone already"
            )
        }
        config.sourceLimits.userAgent = "pullrefresh/\(PullRefreshVersion.current)"
        try config.redis.validate(reloadDelay: config.reloadDelay)
        return config
    }

    /// Certificate and key come as a pair; HSTS only means something over our own TLS.
    private func checkTLSFlags() throws(UsageError) {
        if (tlsCertificate == nil) != (tlsKey == nil) {
            throw UsageError("--tls-cert and --tls-key must be given together")
        }
        if server.strictTransportSecurity, tlsCertificate == nil {
            throw UsageError(
                "--hsts needs --tls-cert and --tls-key (behind a TLS proxy, let the proxy send it)")
        }
    }
}
