import Database
import FeedParsing
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Logging
import River

/// Every flag of `pullrefresh` (serve mode), in `--help` order within each section. Adding a flag
/// is adding a row here: the parser, `--help` and docs/configuration.md (`make flags-doc`) follow.
/// Checks across flags (`--hsts` needs `--tls-cert`, …) live in ``Configuration/parse(_:environment:)``.
enum FlagTable {
    static let rows: [Flag] =
        server + feed + storage + owner + river + limits + pictures + tls + logs + cluster + general

    /// The defaults shown are read from a default configuration, so they cannot drift from it.
    private static let base = Configuration()

    private static let server: [Flag] = [
        .text(
            "--host", "HOST", accepts: "address or name", example: "0.0.0.0", refused: "",
            default: base.server.host, .server, "Address to bind; 0.0.0.0 opens it to your network"
        ) { config, value throws(UsageError) in config.server.host = try value.nonEmpty("not be empty") },
        .integer(
            "--port", 0...65535, default: base.server.port, environment: "PORT", .server,
            "Port, 0 for any free port (the startup line names it)"
        ) { $0.server.port = $1 },
        .integer("--threads", 1...256, default: nil, .server, "Server worker threads") {
            $0.server.threads = $1
        }
        .defaulting(to: "number of cores"),
        .text(
            "--templates", "DIR", accepts: "folder", example: "Fixtures", refused: nil,
            default: base.templates,
            .server, "Mustache templates folder (and its strings/)"
        ) { config, value throws(UsageError) in config.templates = value.text },
        .text(
            "--public", "DIR", accepts: "folder", example: "Static", refused: nil,
            default: base.publicDirectory,
            .server, "Static files folder served at /static/"
        ) { config, value throws(UsageError) in config.publicDirectory = value.text },
        .integer(
            "--page-size", 1...PageRenderer.maxPageSize, default: base.pageSize, .server,
            "Items per page of /; older pages via ?before="
        ) { $0.pageSize = $1 },
    ]

    private static let feed: [Flag] = [
        .duration(
            "--reload-delay", default: FlagValue.describe(base.reloadDelay), .feed,
            "Upstream delay per reload, 0 allowed (0 by default with --source)"
        ) {
            $0.reloadDelay = $1
            $0.reloadDelayGiven = true
        },
        .text(
            "--seed", "N", accepts: "integer, 0 to 2^64 − 1", example: "7", refused: "-1",
            default: String(base.seed),
            .feed, "Seed of the built-in generator"
        ) { config, value throws(UsageError) in
            guard let seed = UInt64(value.text) else {
                throw UsageError("\(value.name) must be a non-negative integer, got '\(value.text)'")
            }
            config.seed = seed
        },
        .integer("--max-items", 1...100_000, default: base.maxItems, .feed, "Items kept, newest first") {
            $0.maxItems = $1
            $0.maxItemsGiven = true
        }
        .defaulting(to: "500; 100000 with --database")
        .documented(
            "In memory, all the server remembers; with `--database` the file and memory hold the same items "
                + "([History and retention](#history-and-retention))"),
        .text(
            "--data", "FILE", accepts: "file", example: "items.json", refused: "", .feed,
            "Read items from a JSON file ({\"items\": [...]}) on every reload"
        ) { config, value throws(UsageError) in config.dataFile = try value.nonEmpty("name a file") }
        .documented(
            "The file is re-read on every reload; a bad file fails that reload and the last good version keeps being served"
        ),
    ]

    private static let storage: [Flag] = [
        .text(
            "--database", "FILE", accepts: "file (created if missing)", example: "feed.sqlite", refused: "",
            .storage, "Keep items, sources' state and the feed's version in this SQLite file"
        ) { config, value throws(UsageError) in config.database = try value.nonEmpty("name a file") }
        .documented(
            "One pullrefresh per file; a restart carries on as if nothing happened. Refused with `--redis`. "
                + "See [Where the feed lives](#where-the-feed-lives) and [operations.md](operations.md)"),
        .choice(
            "--database-sync", ["normal", "full"], default: "normal", .storage,
            "When a commit waits for the disk: full survives power loss too"
        ) { $0.databaseSync = $1 == "full" ? .full : .normal }
        .documented("[What a crash costs](operations.md#what-a-crash-costs)"),
        .integer(
            "--keep-days", value: "D", 1...36_500, default: base.history.keepDays, .storage,
            "Keep a river's items no document carries for D days"
        ) { $0.history.keepDays = $1 }
        .documented("Applies in memory too; never to an item its source's document still carries"),
        .integer(
            "--keep-per-source", 1...100_000, default: base.history.keepPerSource, .storage,
            "Keep at most N items per source, newest first"
        ) { $0.history.keepPerSource = $1 }
        .documented("A document longer than N is kept whole"),
    ]

    private static let owner: [Flag] = [
        .toggle(
            "--public-river", .owner,
            "With an owner set, anyone may still read the river and its read-only API"
        ) { $0.publicRiver = true }
        .documented(
            "Nothing personal is shown; every change still needs the owner. Without `--database` a usage error "
                + "([owner.md](owner.md#a-public-river---public-river))"),
        .text(
            "--trust-proxy", "ADDRESS", accepts: "IP address", example: "127.0.0.1", refused: "proxy.local",
            .owner, "Believe X-Forwarded-For/-Proto from this reverse proxy only; repeat for several"
        ) { config, value throws(UsageError) in
            guard let address = ClientTransport.canonical(value.text) else {
                throw UsageError("\(value.name) must be an IP address, got '\(value.text)'")
            }
            config.trustedProxies.append(address)
        }
        .documented(
            "For requests from that address, the client's address (what sign-in throttles) is the last "
                + "`X-Forwarded-For` entry and HTTPS is `X-Forwarded-Proto: https` (the cookie is then `Secure`). "
                + "Others' forwarded fields are ignored ([owner.md](owner.md#behind-a-proxy---trust-proxy))"),
    ]

    private static let river: [Flag] = [
        .text(
            "--source", "URL", accepts: "`http://` or `https://` URL", example: "http://127.0.0.1:9/feed",
            refused: "ftp://example.org/feed", .river,
            "Fetch a JSON Feed, RSS or Atom feed on every reload; repeat for several (a river)"
        ) { config, value throws(UsageError) in
            guard let url = URL(string: value.text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else {
                throw UsageError("\(value.name) must be an http:// or https:// URL, got '\(value.text)'")
            }
            config.subscriptions.append(Subscription(url: url))
        }
        .documented(
            "http or https: JSON Feed, RSS, Atom or our JSON ([Real upstreams](river.md#one-feed---source)); "
                + "several make [a river](river.md#a-river-of-feeds---sources). `--reload-delay` then defaults to `0`; "
                + "with `--data` a usage error"
        ),
        .text(
            "--sources", "FILE", accepts: "OPML file", example: "feeds.opml", refused: "", .river,
            "Add the feeds of an OPML subscription list (at most \(SubscriptionList.maxSources) sources in all)"
        ) { config, value throws(UsageError) in
            config.subscriptionFile = try value.nonEmpty("name an OPML file")
        }
        .documented(
            "OPML 2.0: each feed in the folder of the outline around it (one level), duplicates dropped, `xmlUrl` http/https only. A bad file is one line on stderr and exit 2"
        ),
        .toggle(
            "--allow-private-feeds", .river,
            "Feeds added from the page or the API may be on loopback and private addresses"
        ) { $0.allowPrivateFeeds = true }
        .documented(
            "For tests and home networks. Without it, an address added by the owner (and every address discovery, "
                + "its probes and redirects lead to) must be public: loopback, private, link-local, unique-local, "
                + "multicast and reserved addresses are refused in every spelling ([Subscriptions](subscriptions.md)). "
                + "`--source`/`--sources` are unaffected. Logged as a warning at start"
        ),
        .integer(
            "--source-concurrency", 1...100, default: base.sourceConcurrency, .river,
            "Fetches of one reload at once"
        ) { $0.sourceConcurrency = $1 },
        .duration(
            "--refresh-every", maxSeconds: 86_400, default: "15m with sources or --database, else off",
            .river,
            "Scheduled refresh: 90s, 15m, 2h; 0 = off"
        ) {
            $0.refreshEvery = $1 == .zero ? nil : $1
            $0.refreshEveryGiven = true
        }
        .documented("Without a source or --database (or with --data) a usage error"),
        .duration(
            "--source-connect-timeout", minimum: .zero,
            default: FlagValue.describe(seconds: base.sourceLimits.connectTimeout), .river,
            "Connect timeout of a fetch"
        ) { $0.sourceLimits.connectTimeout = seconds($1) },
        .duration(
            "--source-timeout", minimum: .zero,
            default: FlagValue.describe(seconds: base.sourceLimits.totalTimeout),
            .river, "Total time of a fetch, redirects included"
        ) { $0.sourceLimits.totalTimeout = seconds($1) },
        .integer(
            "--source-max-bytes", 1...(1 << 30), default: base.sourceLimits.maxBytes, .river,
            "Largest body of a fetch (after decoding), counted while reading"
        ) { $0.sourceLimits.maxBytes = $1 },
    ]

    private static let limits: [Flag] = [
        .integer(
            "--max-body", value: "BYTES", 0...(1 << 30), default: base.server.maxBodySize, .limits,
            "Largest request body"
        ) {
            $0.server.maxBodySize = $1
        }
        .documented("Larger: 413"),
        .integer(
            "--max-pending", 1...100_000, default: base.server.maxPendingRequests, .limits,
            "Most requests awaiting a reload at once; beyond: 503"
        ) { $0.server.maxPendingRequests = $1 }
        .documented("Beyond: 503 with `Retry-After`"),
        .integer(
            "--connection-limit", 1...100_000, default: base.server.connectionLimit, .limits,
            "Most open connections"
        ) { $0.server.connectionLimit = $1 },
        .integer(
            "--per-ip-limit", 0...100_000, default: base.server.perIPConnectionLimit, .limits,
            "Most open connections per client address, 0 = none"
        ) { $0.server.perIPConnectionLimit = $1 },
        .integer(
            "--timeout", value: "SECONDS", 0...3600, default: base.server.connectionTimeout, .limits,
            "Idle connection timeout"
        ) { $0.server.connectionTimeout = $1 },
        .integer(
            "--connection-memory", value: "BYTES", 8192...(16 << 20),
            default: base.server.connectionMemoryLimit, .limits,
            "Memory per connection for request line, headers, buffers"
        ) { $0.server.connectionMemoryLimit = $1 },
        .choice(
            "--polling", ServerOptions.Polling.allCases.map(\.rawValue),
            default: base.server.polling.rawValue,
            .limits, "libmicrohttpd's event mechanism"
        ) { $0.server.polling = ServerOptions.Polling(rawValue: $1) ?? .poll }
        .documented(
            "epoll in 0.9.75 stalls at 128 ready sockets: [bench/README.md]"
                + "(../bench/README.md#known-issue-libmicrohttpd-0975-stalls-at-128-ready-connections-epoll)"),
        .integer(
            "--grace", value: "SECONDS", 0...600,
            default: Int(base.server.shutdownGracePeriod.components.seconds), .limits,
            "Shutdown grace period for pending requests (seconds)"
        ) { $0.server.shutdownGracePeriod = .seconds($1) }
        .documented("On SIGTERM/SIGINT, how long pending requests may finish before they get 503"),
        .integer(
            "--max-streams", 0...100_000, default: base.server.maxStreams, .limits,
            "Most open event streams (GET /api/events); beyond: 503"
        ) { $0.server.maxStreams = $1 }
        .documented("Each stream is a connection, so `--connection-limit` and `--per-ip-limit` apply too"),
        .integer(
            "--stored-responses", 0...10_000, default: base.server.storedResponses, .limits,
            "Cached pages and API bodies kept to answer repeats unrouted, 0 = off"
        ) { $0.server.storedResponses = $1 }
        .documented(
            "Cached pages, item bodies and their 304s, for the same target and the same `Vary`'d header and validator values, while the feed stays at their version "
                + "([Stored responses](compression.md#stored-responses))"
        ),
        .duration(
            "--heartbeat", minimum: .milliseconds(100), default: FlagValue.describe(base.heartbeat), .limits,
            "Comment sent on idle event streams"
        ) { $0.heartbeat = $1 }
        .documented(
            "The comment is `: ping`: it keeps proxies from closing idle streams and finds departed clients"),
    ]

    private static let pictures: [Flag] = [
        .integer(
            "--image-cache-bytes", 0...(4 << 30), default: base.imageCacheBytes, .pictures,
            "Memory for thumbnails made at /img/, least recently used out"
        ) { $0.imageCacheBytes = $1 }
        .documented(
            "Each thumbnail counts as twice its bytes plus 1 KiB (our copy and libmicrohttpd's); `0` keeps none"
        ),
        .toggle(
            "--allow-private-images", .pictures,
            "TESTS ONLY: /img/ may fetch from loopback and private addresses (never in production)"
        ) { $0.allowPrivateImages = true }
        .documented(
            "The tests' image hosts run on loopback. Logged as a warning at start. In production it would let a feed make the server fetch from inside the network"
        ),
    ]

    private static let tls: [Flag] = [
        .text(
            "--tls-cert", "FILE", accepts: "PEM file", example: "cert.pem", refused: nil, .tls,
            "Serve HTTPS with this PEM certificate (chain); needs --tls-key"
        ) { config, value throws(UsageError) in config.tlsCertificate = value.text }
        .documented("libmicrohttpd's GnuTLS; the chain leaf first"),
        .text(
            "--tls-key", "FILE", accepts: "PEM file", example: "key.pem", refused: nil, .tls,
            "The PEM private key of --tls-cert"
        ) { config, value throws(UsageError) in config.tlsKey = value.text }
        .documented(
            "Unencrypted PEM. Missing, unreadable, non-PEM or mismatched: one line, exit 1; only one of the two: exit 2"
        ),
        .toggle("--hsts", .tls, "With TLS: send Strict-Transport-Security (max-age one year)") {
            $0.server.strictTransportSecurity = true
        }
        .documented(
            "`max-age=31536000` on every response. Without `--tls-cert` a usage error: behind a TLS proxy, the proxy sends HSTS"
        ),
    ]

    private static let logs: [Flag] = [
        .toggle("--quiet", .logs, "No access log or info lines") { $0.quiet = true }
            .documented("Errors still go to stderr"),
        .choice("--metrics", ["on", "off"], default: "on", .logs, "Prometheus metrics at /metrics") {
            $0.metrics = $1 == "on"
        }
        .documented("`off`: `/metrics` answers 404 ([operations.md](operations.md#metrics))"),
        .choice(
            "--log-format", LogFormat.allCases.map(\.rawValue), default: base.logFormat.rawValue, .logs,
            "Access and diagnostic lines as text or one JSON object per line"
        ) { $0.logFormat = LogFormat(rawValue: $1) ?? .text }
        .documented(
            "`json`: the startup line, every access line (`time`, `level`, `method`, `path`, `status`, `bytes`, `duration_ms`, `peer`, `request_id`) and every warning or error (`time`, `level`, `message`, `request_id` when known)"
        ),
    ]

    private static let cluster: [Flag] = [
        .text(
            "--redis", "URL", accepts: "`redis://[:password@]host[:port][/db]`",
            example: "redis://127.0.0.1:9/0",
            refused: "redis://host:99999", environment: "REDIS_URL", .cluster,
            "Share one feed through Redis; without it the feed lives in this process"
        ) { config, value throws(UsageError) in config.redis.url = try RedisFlags.parseURL(value) }
        .documented("See [cluster.md](cluster.md)"),
        .text(
            "--redis-prefix", "P", accepts: "text without spaces", example: "test:", refused: "",
            default: base.redis.prefix, .cluster, "Prefix of every Redis key and channel"
        ) { config, value throws(UsageError) in
            guard !value.text.isEmpty, !value.text.contains(where: { $0.isWhitespace }) else {
                throw UsageError("\(value.name) must be non-empty without spaces, got '\(value.text)'")
            }
            config.redis.prefix = value.text
        },
        .duration(
            "--redis-connect-timeout", minimum: .zero, default: FlagValue.describe(base.redis.connectTimeout),
            .cluster, "Bound on connecting to Redis"
        ) { $0.redis.connectTimeout = $1 },
        .duration(
            "--redis-timeout", minimum: .zero, default: FlagValue.describe(base.redis.commandTimeout),
            .cluster,
            "Bound on one Redis command; a refresh answers 503 past it"
        ) { $0.redis.commandTimeout = $1 },
        .duration(
            "--lease", minimum: .zero, default: "3 × reload delay + 1s", .cluster,
            "Longest reload a cluster lease covers"
        ) { $0.redis.lease = $1 }
        .documented(
            "Past it another instance may take over the reload; must be longer than `--reload-delay`"),
    ]

    private static let general: [Flag] = [
        .toggle("--version", .general, "Print the version and exit") { $0.showVersion = true },
        .toggle("--help", aliases: ["-h"], .general, "Show this help and exit") { $0.showHelp = true },
        .toggle("--help-markdown", .general, "Print the flag reference of docs/configuration.md and exit") {
            $0.showMarkdown = true
        },
    ]

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
