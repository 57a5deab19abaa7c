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
    private var maxItemsGiven = false
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
    /// sources, off otherwise.
    var refreshEvery: Duration?
    private var refreshEveryGiven = false
    var sourceLimits = FetchLimits()
    private var reloadDelayGiven = false
    var templates = "Templates"
    var publicDirectory = "Public"
    var showHelp = false
    var showVersion = false
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

    static let usage = """
        Usage: pullrefresh [options]
               pullrefresh render NAME [--templates DIR] [--data FILE|-]
               pullrefresh backup --database FILE OUT

        Serves the PullRefresh page and JSON API.

        Options:
          --host HOST            Address to bind (default 127.0.0.1; 0.0.0.0 opens it to your network)
          --port N               Port, 0 for any free port (default 8080, or $PORT)
          --reload-delay D       Upstream delay per reload: seconds or 500ms/2s (default 1s, 0 allowed)
          --seed N               Seed of the built-in generator (default 42)
          --max-items N          Items kept, newest first (default 500; with --database 100000)
          --database FILE        Keep items, sources' state and the feed's version in this SQLite file
                                 (created if missing; one pullrefresh per file); without it, memory only
          --database-sync normal|full  Commits wait for the disk: full survives power loss too (default normal)
          --keep-days D          Keep a river's items no document carries for D days (default 180)
          --keep-per-source N    Keep at most N items per source, newest first (default 1000)
          --page-size N          Items per page of / (1 to 100, default 30); older pages via ?before=
          --data FILE            Read items from a JSON file ({"items": [...]}) on every reload
          --source URL           Fetch a JSON Feed, RSS or Atom feed (http/https) on every reload;
                                 repeat for several (a river); --reload-delay then defaults to 0
          --sources FILE         Add the feeds of an OPML subscription list (at most 500 sources)
          --source-concurrency N Fetches of one reload at once (1 to 100, default 16)
          --refresh-every D      Scheduled refresh: 90s, 15m, 2h (default 15m with sources, else off; 0 = off)
          --source-connect-timeout D  Connect timeout of --source (default 5s)
          --source-timeout D     Total time per fetch of --source, redirects included (default 15s)
          --source-max-bytes N   Largest --source body, counted while reading (default 16777216)
          --templates DIR        Mustache templates folder (default Templates)
          --public DIR           Static files folder served at /static/ (default Public)
          --threads N            Server worker threads (default: number of cores)
          --max-body BYTES       Largest request body (default 1048576)
          --max-pending N        Most requests awaiting a reload at once; beyond: 503 (default 1024)
          --connection-limit N   Most open connections (default 1024)
          --per-ip-limit N       Most open connections per client IP (default 256, 0 = none)
          --timeout SECONDS      Idle connection timeout (default 15)
          --connection-memory B  Memory per connection for request line, headers, buffers (default 16384)
          --polling poll|epoll   libmicrohttpd's event mechanism (default poll; see README)
          --grace SECONDS        Shutdown grace period for pending requests (default 10)
          --max-streams N        Most open event streams (GET /api/events); beyond: 503 (default 512)
          --stored-responses N   Cached pages and API bodies kept to answer repeats unrouted (default 64, 0 = off)
          --heartbeat D          Comment sent on idle event streams: seconds or 500ms/2s (default 15s)
          --image-cache-bytes N  Memory for thumbnails made at /img/ (default 33554432), least recently used out
          --allow-private-images FOR TESTS ONLY: let /img/ fetch pictures from loopback and private
                                 addresses (never use in production: it opens the inside of the network)
          --quiet                No access log or info lines
          --tls-cert FILE        Serve HTTPS with this PEM certificate (chain); needs --tls-key
          --tls-key FILE         The PEM private key of --tls-cert
          --hsts                 With TLS: send Strict-Transport-Security (max-age one year)
          --metrics on|off       Prometheus metrics at /metrics (default on)
          --log-format text|json Access and diagnostic lines as text or one JSON object per line
          --version              Print the version and exit
          -h, --help             Show this help

        Several instances (one shared feed):
        \(RedisFlags.usage)
        """

    /// Parses arguments (without the program name) and `PORT` from the environment.
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError)
        -> Configuration
    {
        var config = Configuration()
        if let port = environment["PORT"], !port.isEmpty {
            config.server.port = try integer(port, flag: "PORT", range: 0...65535)
        }
        try config.redis.read(environment: environment)
        var index = 0
        func value(for flag: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(flag) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            var flag = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func number(_ range: ClosedRange<Int>) throws(UsageError) -> Int {
                try integer(value(for: flag, inline: inline), flag: flag, range: range)
            }
            switch flag {
            case "-h", "--help": config.showHelp = true
            case "--quiet": config.quiet = true
            case "--host":
                let host = try value(for: flag, inline: inline)
                guard !host.isEmpty else { throw UsageError("--host must not be empty") }
                config.server.host = host
            case "--port":
                config.server.port = try number(0...65535)
            case "--reload-delay":
                config.reloadDelay = try duration(value(for: flag, inline: inline), flag: flag)
                config.reloadDelayGiven = true
            case "--source":
                let text = try value(for: flag, inline: inline)
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", url.host?.isEmpty == false
                else {
                    throw UsageError("--source must be an http:// or https:// URL, got '\(text)'")
                }
                config.subscriptions.append(Subscription(url: url))
            case "--sources":
                let path = try value(for: flag, inline: inline)
                guard !path.isEmpty else { throw UsageError("--sources must name an OPML file") }
                config.subscriptionFile = path
            case "--source-concurrency":
                config.sourceConcurrency = try number(1...100)
            case "--refresh-every":
                let every = try duration(value(for: flag, inline: inline), flag: flag, maxSeconds: 86_400)
                config.refreshEvery = every == .zero ? nil : every
                config.refreshEveryGiven = true
            case "--source-connect-timeout", "--source-timeout":
                let delay = try duration(value(for: flag, inline: inline), flag: flag)
                let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
                guard seconds > 0 else { throw UsageError("\(flag) must be more than 0") }
                if flag == "--source-timeout" {
                    config.sourceLimits.totalTimeout = seconds
                } else {
                    config.sourceLimits.connectTimeout = seconds
                }
            case "--source-max-bytes":
                config.sourceLimits.maxBytes = try number(1...(1 << 30))
            case "--seed":
                let text = try value(for: flag, inline: inline)
                guard let seed = UInt64(text) else {
                    throw UsageError("--seed must be a non-negative integer, got '\(text)'")
                }
                config.seed = seed
            case "--max-items":
                config.maxItems = try number(1...100_000)
                config.maxItemsGiven = true
            case "--database":
                let path = try value(for: flag, inline: inline)
                guard !path.isEmpty else { throw UsageError("--database must name a file") }
                config.database = path
            case "--database-sync":
                let text = try value(for: flag, inline: inline)
                guard let sync = DatabaseConnection.Synchronous(rawValue: text.uppercased()) else {
                    throw UsageError("--database-sync must be 'normal' or 'full', got '\(text)'")
                }
                config.databaseSync = sync
            case "--keep-days":
                config.history.keepDays = try number(1...36_500)
            case "--keep-per-source":
                config.history.keepPerSource = try number(1...100_000)
            case "--page-size":
                config.pageSize = try number(1...PageRenderer.maxPageSize)
            case "--data":
                let path = try value(for: flag, inline: inline)
                guard !path.isEmpty else { throw UsageError("--data must name a file") }
                config.dataFile = path
            case "--templates": config.templates = try value(for: flag, inline: inline)
            case "--public": config.publicDirectory = try value(for: flag, inline: inline)
            case "--threads":
                config.server.threads = try number(1...256)
            case "--max-body":
                config.server.maxBodySize = try number(0...(1 << 30))
            case "--max-pending":
                config.server.maxPendingRequests = try number(1...100_000)
            case "--connection-limit":
                config.server.connectionLimit = try number(1...100_000)
            case "--per-ip-limit":
                config.server.perIPConnectionLimit = try number(0...100_000)
            case "--connection-memory":
                config.server.connectionMemoryLimit = try number(8192...(16 << 20))
            case "--polling":
                let text = try value(for: flag, inline: inline)
                guard let polling = ServerOptions.Polling(rawValue: text) else {
                    throw UsageError("--polling must be 'poll' or 'epoll', got '\(text)'")
                }
                config.server.polling = polling
            case "--timeout":
                config.server.connectionTimeout = try number(0...3600)
            case "--grace":
                config.server.shutdownGracePeriod = .seconds(
                    try number(0...600))
            case "--max-streams":
                config.server.maxStreams = try number(0...100_000)
            case "--stored-responses":
                config.server.storedResponses = try number(0...10_000)
            case "--heartbeat":
                config.heartbeat = try duration(value(for: flag, inline: inline), flag: flag)
                guard config.heartbeat >= .milliseconds(100) else {
                    throw UsageError("--heartbeat must be at least 100ms")
                }
            case "--image-cache-bytes":
                config.imageCacheBytes = try number(0...(4 << 30))
            case "--allow-private-images": config.allowPrivateImages = true
            case "--version": config.showVersion = true
            case "--tls-cert": config.tlsCertificate = try value(for: flag, inline: inline)
            case "--tls-key": config.tlsKey = try value(for: flag, inline: inline)
            case "--hsts": config.server.strictTransportSecurity = true
            case "--metrics":
                let text = try value(for: flag, inline: inline)
                guard text == "on" || text == "off" else {
                    throw UsageError("--metrics must be 'on' or 'off', got '\(text)'")
                }
                config.metrics = text == "on"
            case "--log-format":
                let text = try value(for: flag, inline: inline)
                guard let format = LogFormat(rawValue: text) else {
                    throw UsageError("--log-format must be 'text' or 'json', got '\(text)'")
                }
                config.logFormat = format
            case _ where RedisFlags.names.contains(flag):
                try config.redis.apply(flag, value: value(for: flag, inline: inline))
            default:
                throw UsageError("unknown option '\(argument)'")
            }
            index += 1
        }
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
        } else if config.refreshEvery != nil {
            throw UsageError("--refresh-every needs --source or --sources")
        }
        if config.database != nil {
            if config.redis.url != nil {
                throw UsageError(
                    "--database and --redis cannot be used together: a cluster keeps its feed in Redis, shared "
                        + "by its instances, and a database file belongs to one process")
            }
            if !config.maxItemsGiven { config.maxItems = 100_000 }
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

    private static func integer(_ text: String, flag: String, range: ClosedRange<Int>) throws(UsageError)
        -> Int
    {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "\(flag) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// `1`, `0.5`, `500ms`, `2s`, `15m`, `2h`: a delay of at most `maxSeconds` (ten minutes).
    static func duration(_ text: String, flag: String, maxSeconds: Double = 600) throws(UsageError)
        -> Duration
    {
        var number = text
        var scale = 1.0
        if text.hasSuffix("ms") {
            number = String(text.dropLast(2))
            scale = 0.001
        } else if let unit = text.last, let unitScale = ["s": 1.0, "m": 60, "h": 3600][unit] {
            number = String(text.dropLast())
            scale = unitScale
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale <= maxSeconds else {
            let examples = maxSeconds > 600 ? "90s, 15m or 2h" : "1, 0.5, 500ms or 2s"
            throw UsageError(
                "\(flag) must be a duration like \(examples) (0 to \(Int(maxSeconds)) seconds), got '\(text)'"
            )
        }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }
}

/// A bad command line: reported as one line, exit status 2.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
