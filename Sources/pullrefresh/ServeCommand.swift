import Allocator
import Feed
import FeedParsing
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Images
import Logging
import Metrics
import Mustache
import Owner
import RedisClient
import RedisFeed
import River
import Storage
import Thumbnails

/// `pullrefresh` without a subcommand: load templates and data, serve until a signal.
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        // First: from here on a termination signal is caught, never fatal (see SignalWaiter).
        let signals = SignalWaiter()
        Allocator.keepLargeAllocationsReturnable()
        let config: Configuration
        do {
            config = try Configuration.parse(arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            return fail("\(error.message) (see --help)", status: 2)
        }
        if config.showHelp {
            FileHandle.standardOutput.write(Data((FlagHelp.text() + "\n").utf8))
            return 0
        }
        if config.showMarkdown {
            FileHandle.standardOutput.write(Data(FlagHelp.markdown().utf8))
            return 0
        }
        if config.showVersion {
            FileHandle.standardOutput.write(Data("pullrefresh \(PullRefreshVersion.current)\n".utf8))
            return 0
        }
        var options = config.server
        do {
            options.tls = try loadTLS(config)
        } catch {
            return fail(error.description)
        }
        let logger = Logger(quiet: config.quiet, format: config.logFormat)
        startImages(logger: logger)
        let metrics = config.metrics ? ServeCommand.processMetrics() : nil
        let app: FeedApp
        let schedule: RefreshService?
        let database: FeedDatabase?
        do {
            (app, schedule, database) = try await makeApp(config, logger: logger, metrics: metrics)
        } catch let error as StorageError {
            return fail(error.message, status: 2)
        } catch let error as RedisError {
            return fail("Redis \(config.redis.url.map { "at \($0) " } ?? "")\(error.description)")
        } catch let error as FeedError {
            return fail(error.message)
        } catch let error as MustacheError {
            return fail("templates: \(error.description)")
        } catch {
            return fail("\(error)")
        }
        // Owner-added feeds (discovery, subscriptions) are fetched under config.ownerFeedPolicy.
        if config.allowPrivateFeeds {
            logger.warning(
                "--allow-private-feeds: feeds added from the page or the API may be on private addresses "
                    + "(tests and home networks only)")
        }
        let owner: OwnerAuthority?
        do {
            owner = try ownerAuthority(config, logger: logger)
        } catch {
            return fail(error.message, status: 2)
        }
        let server: Server
        do {
            let router = router(
                app, config: config, tls: options.tls != nil, owner: owner, logger: logger, metrics: metrics)
            server = try Server(
                router: router, options: options, logger: logger, metrics: metrics,
                metricPrefix: "pullrefresh")
        } catch {
            return fail(error.description)
        }
        logger.always("pullrefresh listening on \(server.scheme)://\(server.address)")
        if let database {
            let snapshot = app.store.current
            logger.notice(
                "database \(database.path): \(snapshot.entries.count) items, version \(snapshot.version) of epoch "
                    + snapshot.position.tag)
        }
        schedule?.start()
        let signalName = await signals.wait()
        logger.notice("received \(signalName)")
        signals.whenRepeated { name in logger.notice("received \(name) again: still draining") }
        // The schedule stops beside the server's shutdown, not before it: a scheduled fetch in
        // flight (up to --source-timeout) must not hold back the pending requests' grace.
        async let scheduleStopped: Void = schedule?.stop() ?? ()
        await server.shutdown()
        await scheduleStopped
        owner?.flush()  // a session's sliding expiry queued by the last requests
        (app.store as? RedisFeedStore)?.close()
        // The write-ahead log folded into the file: a stopped server leaves one file to copy.
        if let database, let problem = database.checkpoint() {
            logger.warning("database \(database.path): \(problem)")
        }
        return 0
    }

    /// Every route: the app's, the thumbnails', `/metrics` (with its flag), and the owner's
    /// (`/signin`, `/signout`) with the gate every other route passes when there is a database.
    static func router(
        _ app: FeedApp, config: Configuration, tls: Bool, owner: OwnerAuthority?, logger: Logger,
        metrics: MetricsRegistry?
    ) -> Router {
        var router = app.router()
        thumbnails(config, store: app.store, logger: logger, metrics: metrics).register(on: &router)
        if let metrics {
            app.registerMetrics(in: metrics)
            // Open to monitors by its flag (--no-metrics turns it off), like /healthz.
            router.get("/metrics", access: .anyone) { _ in
                Response(
                    headers: ["Content-Type": MetricsRegistry.contentType, "Cache-Control": "no-store"],
                    body: Array(metrics.exposition().utf8))
            }
        }
        let transport = ClientTransport(tls: tls, trustedProxies: config.trustedProxies)
        OwnerRoutes(
            app: app, authority: owner, publicRiver: config.publicRiver, transport: transport, logger: logger
        )
        .register(on: &router)
        return router
    }

    /// The owner's authority over the database's owner records; nil without `--database`.
    static func ownerAuthority(_ config: Configuration, logger: Logger) throws(StorageError)
        -> OwnerAuthority?
    {
        guard let path = config.database else { return nil }
        let records = try OwnerRecords(path: path, synchronous: config.databaseSync)
        let authority = OwnerAuthority(records: records, logger: logger)
        try authority.prepare()  // the hash key read (or made) now, not by the first request
        return authority
    }

    /// The app, the scheduled refresh when there is one (not yet started), and the database.
    static func makeApp(_ config: Configuration, logger: Logger, metrics: MetricsRegistry? = nil)
        async throws -> (FeedApp, RefreshService?, FeedDatabase?)
    {
        let templatesURL = URL(fileURLWithPath: config.templates, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: templatesURL.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw FeedError("templates folder \(config.templates) does not exist")
        }
        let library = try MustacheLibrary(directory: templatesURL)
        let localizer = try Localizer(directory: templatesURL.appendingPathComponent("strings"))
        let renderer = try PageRenderer(library: library, localizer: localizer)
        let files = try StaticFiles(directory: config.publicDirectory)

        // The store of record first: a file that is in use, not a database, or newer than this
        // program stops the start before anything is fetched.
        let database = try config.database.map {
            try FeedDatabase(path: $0, synchronous: config.databaseSync)
        }
        let restored = try database?.load(maxItems: config.maxItems)
        if let database, let restored, restored.trimmed > 0 {
            // stderr: stdout's first line is the address, which scripts wait for.
            logger.warning("database \(database.path): \(restored.trimmed) items beyond --max-items removed")
        }
        let source: any FeedSource
        let initial: [FeedItem]
        var river: River?
        var wiring: SubscriptionWiring?
        if let database, config.dataFile == nil {
            // The list of feeds lives in the database (see SubscriptionWiring).
            let started = try await SubscriptionWiring.start(
                config, database: database, restored: restored, metrics: metrics, logger: logger)
            initial = started.initial
            source = started.river
            river = started.river
            wiring = started
        } else if !config.subscriptions.isEmpty {
            // The first fetch happens before listening: when every source fails the start fails,
            // like a bad --data; when some answer, the others are reported failing.
            let sources = River(
                subscriptions: config.subscriptions, limits: config.sourceLimits,
                concurrency: config.sourceConcurrency, refreshEvery: config.refreshEvery,
                history: config.history,
                registry: metrics)
            // With Redis the per-source state is the cluster's from the start; when the cluster
            // already holds a feed there is nothing to fetch first (its snapshot is joined below).
            // With a database, the states it kept (validators, next fetch) are the river's: the
            // first reload is conditional and the schedule carries on where it left off.
            var joinsAFeed = restored?.snapshot != nil
            if let database { await sources.useStateStore(database) }
            if let redis = config.redis.configuration(reloadDelay: config.reloadDelay) {
                let shared = try await RedisSourceStates.connect(redis)
                await sources.useStateStore(shared.states)
                joinsAFeed = shared.holdsFeed
            }
            if joinsAFeed {
                initial = []
                _ = await sources.nextDue()  // reads the shared state, for the reports
            } else {
                initial = try await sources.fetch(current: [])
            }
            source = sources
            river = sources
        } else if let path = config.dataFile {
            let fileSource = FileSource(path: path)
            initial = restored?.snapshot != nil ? [] : try fileSource.load()
            source = fileSource
        } else {
            let generator = GeneratorSource(seed: config.seed)
            initial = generator.initialItems(count: min(12, config.maxItems))
            source = generator
        }
        // The upstream wait lives in the source, so the reload metrics include it.
        // (The database's river delays only its demo: a real source's fetch is its own wait.)
        var upstream: any FeedSource = DelayedSource(
            source, delay: wiring == nil ? config.reloadDelay : .zero)
        if let metrics { upstream = MeteredSource(upstream, registry: metrics) }
        let store: any FeedBackend
        if let redis = config.redis.configuration(reloadDelay: config.reloadDelay) {
            store = try await RedisFeedStore.connect(
                redis, initial: initial, source: upstream, delay: .zero, maxItems: config.maxItems,
                logger: logger)
        } else if let database {
            let snapshot: FeedSnapshot
            if let kept = wiring?.restoring ?? restored?.snapshot {
                snapshot = kept
            } else {
                // A new file: the first snapshot is written before anything is served from it.
                snapshot = FeedStore.firstSnapshot(of: initial, maxItems: config.maxItems, at: Date())
                try database.write(
                    snapshot, replacing: FeedSnapshot(version: 0, updatedAt: snapshot.updatedAt, entries: []))
            }
            store = FeedStore(
                restoring: snapshot, record: database, source: upstream, delay: .zero,
                maxItems: config.maxItems)
        } else {
            store = FeedStore(initial: initial, source: upstream, delay: .zero, maxItems: config.maxItems)
        }
        if let river, initial.isEmpty { river.countHeld(store.current.items) }
        wiring?.book.attach(store)
        // With a database the book is the river's directory too (its reports carry the folders).
        let app = FeedApp(
            store: store, renderer: renderer, files: files, logger: logger, pageSize: config.pageSize,
            heartbeat: config.heartbeat, sources: wiring?.book ?? river, subscriptions: wiring?.book)
        return (
            app,
            river.flatMap { river in
                config.refreshEvery.map { _ in RefreshService(river: river, backend: store, logger: logger) }
            },
            database
        )
    }

    /// libvips, started while this is the only thread (it sets an environment variable).
    static func startImages(logger: Logger) {
        let images = Thumbnailer.start()
        if !images.started {
            logger.warning("libvips did not start: /img/ answers 502")
        } else if !images.heif {
            logger.warning("libvips' HEIF module did not load: AVIF and HEIF pictures are refused")
        }
    }

    /// `GET /img/{id}?w=`: item pictures fetched with the source's timeouts, never from inside
    /// the network unless `--allow-private-images` (tests) says so.
    static func thumbnails(
        _ config: Configuration, store: any FeedBackend, logger: Logger, metrics: MetricsRegistry?
    )
        -> ThumbnailService
    {
        if config.allowPrivateImages {
            logger.warning("--allow-private-images: /img/ may fetch from private addresses (for tests only)")
        }
        var limits = config.sourceLimits
        limits.maxBytes = ImageFetcher.maxBytes
        let fetcher = ImageFetcher(limits: limits, policy: config.allowPrivateImages ? .any : .publicOnly)
        return ThumbnailService(
            store: store, fetcher: fetcher, widths: ThumbnailSlot.widths, cacheBytes: config.imageCacheBytes,
            logger: logger,
            metrics: metrics)
    }

    /// The process-wide series: version and start time.
    static func processMetrics() -> MetricsRegistry {
        let registry = MetricsRegistry()
        registry.sampled(
            "pullrefresh_build_info", help: "Always 1; the version is the label.", kind: .gauge,
            labels: [("version", PullRefreshVersion.current)]
        ) { 1 }
        let started = Date().timeIntervalSince1970
        registry.sampled(
            "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.",
            kind: .gauge
        ) { started }
        return registry
    }

    /// The certificate and key files, read and checked, or nil without `--tls-cert`.
    static func loadTLS(_ config: Configuration) throws(ServerError) -> TLSCredentials? {
        guard let certificatePath = config.tlsCertificate, let keyPath = config.tlsKey else { return nil }
        func read(_ path: String, _ what: String) throws(ServerError) -> String {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            guard exists, !isDirectory.boolValue, let data = FileManager.default.contents(atPath: path) else {
                let reason =
                    !exists ? "no such file" : isDirectory.boolValue ? "is a directory" : "not readable"
                throw ServerError.invalidTLS("cannot read the \(what) \(path): \(reason)")
            }
            guard data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
                throw ServerError.invalidTLS("the \(what) \(path) is not a PEM text file")
            }
            return text
        }
        let credentials = TLSCredentials(
            certificatePEM: try read(certificatePath, "certificate"), keyPEM: try read(keyPath, "key"))
        if let problem = credentials.problem() {
            throw ServerError.invalidTLS("\(problem) (\(certificatePath), \(keyPath))")
        }
        return credentials
    }

    private static func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("pullrefresh: \(message)\n".utf8))
        return status
    }
}
