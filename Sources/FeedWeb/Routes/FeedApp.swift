import Compression
public import Feed
import Foundation
public import HTTPServer
public import Logging
public import Metrics
import Mustache
public import Reading

/// The product's HTTP surface: the page, the no-JS refresh, the JSON API, health, the OpenAPI
/// document and static files, wired into a ``Router``.
public final class FeedApp: Sendable {
    struct PageKey: Hashable, Sendable {
        var language: String
        var layout: PageRenderer.Layout
        var explicitLanguage: Bool
        var before: ItemsQuery.Cursor?
        /// `?source=` or `?folder=`: part of a river (``RiverFilter/tag``).
        var filter: String? = nil
    }

    struct ItemsKey: Hashable, Sendable {
        /// `?source=` or `?folder=`: part of a river (``RiverFilter/tag``).
        var filter: String? = nil
        var limit: Int
        var cursor: ItemsQuery.Cursor?
        var since: Int?
        /// The epoch of a `since` given as a position.
        var sinceEpoch: Int?
        /// The language of the HTML fragment; nil for JSON.
        var fragmentLanguage: String?
    }

    enum RefreshKey: Hashable, Sendable {
        case fragment(since: Int, language: String, filter: String?)
        case json(since: Int, limit: Int, cursor: ItemsQuery.Cursor?, filter: String?)
    }

    /// The store behind every route.
    public let store: any FeedBackend
    /// Renders templates.
    public let renderer: PageRenderer
    /// Serves `Public/`.
    public let files: StaticFiles
    /// Items per page of `/` (and per older page).
    public let pageSize: Int
    let logger: Logger
    /// The live event streams of `GET /api/events`.
    public let events: EventHub
    private let sourceStatus: (@Sendable () -> FeedSourceStatus)?
    /// The store as stored responses see it: at its revision (see ``StoreRevisions``).
    private let revisions: StoreRevisions
    /// The web app manifest in every UI language.
    private let manifest: WebAppManifest
    /// The sources of a river of feeds, when there are several (`--source`, `--sources`).
    let sources: (any SourceDirectory)?
    /// The river's subscriptions when they live in a database and the owner may change them
    /// (the Feeds page, `/api/sources` changes); nil: the list is the command line's (read-only).
    let subscriptions: (any SubscriptionBook)?
    /// The owner's reading state (read, starred); nil for a server that keeps none (the
    /// pages then show no marks and the reading routes answer `404`).
    let reading: (any ReadingBook)?
    private let pages = ResponseCache<PageKey, Representation>(capacity: 256)
    private let itemBodies = ResponseCache<ItemsKey, Representation>(capacity: 256)
    private let refreshBodies = ResponseCache<RefreshKey, Representation>(capacity: 256)

    /// Creates the app; `pageSize` is clamped to 1...``PageRenderer/maxPageSize``. With
    /// `sourceStatus` (a real upstream), `/healthz` reports it as `"source"`. The subscriptions
    /// are `subscriptions`, else `sources` when they are a ``SubscriptionBook``; with only
    /// `subscriptions`, they are also the river's `sources`.
    public init(
        store: any FeedBackend, renderer: PageRenderer, files: StaticFiles, logger: Logger = Logger(),
        pageSize: Int = PageRenderer.defaultPageSize, heartbeat: Duration = .seconds(15),
        sourceStatus: (@Sendable () -> FeedSourceStatus)? = nil, sources: (any SourceDirectory)? = nil,
        subscriptions: (any SubscriptionBook)? = nil, reading: (any ReadingBook)? = nil
    ) {
        self.reading = reading
        self.sourceStatus = sourceStatus
        self.sources = sources ?? subscriptions
        // The server passes its river's book as `sources`: a river over the database is one.
        self.subscriptions = subscriptions ?? (sources as? any SubscriptionBook)
        self.store = store
        self.renderer = renderer
        self.files = files
        self.pageSize = min(max(pageSize, 1), PageRenderer.maxPageSize)
        self.logger = logger
        revisions = StoreRevisions(store: store)
        manifest = WebAppManifest(localizer: renderer.localizer)
        events = EventHub(store: store, heartbeat: heartbeat)
    }

    /// All routes, with errors rendered as JSON envelopes under `/api/` and HTML pages elsewhere.
    ///
    /// Each declares who may use it (``Access``): reading the river is `.reader` (the owner, or
    /// anyone with a public river); a refresh reads the feeds again and changes nothing of the
    /// owner's, so it is `.reader` too; the subscription list (with its feeds' queries) is the
    /// owner's; what a browser or a monitor fetches on its own is `.anyone`.
    public func router() -> Router {
        var router = Router(
            logger: logger, errorRenderer: { error, request in self.renderError(error, for: request) },
            shutdownRenderer: { error in self.jsonError(error) })
        router.get("/", access: .reader) { request in try self.page(request) }
        router.post("/refresh", access: .reader) { request in try await self.formRefresh(request) }
        router.get("/api/items", access: .reader) { request in try self.items(request) }
        router.post("/api/refresh", access: .reader) { request in try await self.apiRefresh(request) }
        router.get("/healthz", access: .anyone) { _ in self.health() }
        router.get("/api/events", access: .reader) { request in
            try self.events.open(request, sourceKeys: try self.riverFilter(request)?.keys)
        }
        router.get("/sw.js", access: .anyone) { request in try self.serviceWorker(request) }
        router.get("/manifest.webmanifest", access: .anyone) { request in try self.webAppManifest(request) }
        // Browsers ask for it on their own, whatever the page links: the icon, not a logged 404.
        router.get("/favicon.ico", access: .anyone) { request in
            try self.files.respond(relative: "icons/favicon.ico", request: request)
        }
        router.get("/api/sources", access: .reader) { request in try self.sourcesList(request) }
        router.get("/api/sources.opml", access: .owner) { request in try self.sourcesOPML(request) }
        addSubscriptionRoutes(to: &router)
        router.get("/api/openapi.json", access: .anyone) { request in
            OpenAPIDocument.representation.response(to: request)
        }
        router.get(StaticFiles.urlPrefix + "*", access: .anyone) { request in
            try self.files.respond(relative: request.parameters["*"] ?? "", request: request)
        }
        return router
    }

    /// The `GET /api/items` body for the first `limit` items, encoded afresh (no cache);
    /// public for the in-process benchmark.
    public static func encodeItems(_ snapshot: FeedSnapshot, limit: Int) -> [UInt8] {
        var query = ItemsQuery()
        query.limit = limit
        return ItemsPayload.encode(snapshot, query: query, added: nil)
    }

    /// A cached value for the current revision; only a miss copies the snapshot and builds.
    private func cached<Key, Value>(
        _ cache: ResponseCache<Key, Value>, key: Key, build: (FeedSnapshot) throws -> Value
    ) rethrows -> Value {
        try cached(cache, key: key, content: revisions, build: build)
    }

    /// The same, versioned by `content` (a river's pages: ``PageVersion``).
    private func cached<Key, Value>(
        _ cache: ResponseCache<Key, Value>, key: Key, content: any VersionedContent,
        build: (FeedSnapshot) throws -> Value
    ) rethrows -> Value {
        if let hit = cache.lookup(version: content.currentVersion, key: key) { return hit }
        // The version is read before the snapshot: a reload in between only makes the entry
        // hold newer items under an older version, which the next lookup replaces.
        let version = content.currentVersion
        let snapshot = store.current
        return try cache.value(version: version, key: key) { try build(snapshot) }
    }

    // MARK: Page

    func page(_ request: Request) throws -> Response {
        let (language, explicit) = try language(for: request)
        let layout: PageRenderer.Layout
        switch request.queryValue("layout") {
        case nil: layout = .list
        case let value?:
            // Case-insensitive like `lang`: `?layout=GRID` is the grid.
            guard let chosen = PageRenderer.Layout(rawValue: value.lowercased()) else {
                throw HTTPError.badRequest("Query parameter 'layout' must be 'list' or 'grid'.")
            }
            layout = chosen
        }
        var before: ItemsQuery.Cursor?
        if let raw = request.queryValue("before") {
            // The value is not echoed: pages are compressed, and reflected text is what BREACH needs.
            guard let cursor = ItemsQuery.Cursor(text: raw) else {
                throw HTTPError.badRequest(
                    "Query parameter 'before' must be the position from an 'Older items' link.",
                    code: "invalid_before")
            }
            before = cursor
        }
        let only = try riverFilter(request)
        let key = PageKey(
            language: language, layout: layout, explicitLanguage: explicit, before: before, filter: only?.tag)
        let content: any VersionedContent =
            sources.map { PageVersion(store: store, sources: $0) } ?? revisions
        let river = sources.map { PageRenderer.River(sources: $0, only: only) }
        let representation = try cached(pages, key: key, content: content) { whole in
            let snapshot = only.map { $0.apply(to: whole) } ?? whole
            // What stored responses key on (the revision, with a river's status generation), and
            // what the ETag names (the version, the same on every instance of a cluster).
            let generation = sources?.statusGeneration
            let pageVersion =
                generation.map { PageVersion.combine(revision: whole.revision, generation: $0) }
                ?? whole.revision
            let pageTag = generation.map { "\(whole.version)g\($0)" } ?? "\(whole.version)"
            var headers = SecurityHeaders.html
            headers.set("Cache-Control", "no-cache")
            headers.set("Vary", "Accept-Language")
            headers.set("Content-Type", "text/html; charset=utf-8")
            let position = (before.map { "-b\($0.text)" } ?? "") + (only?.tag ?? "")
            return Representation(
                etag:
                    "\"\(snapshot.position.tag)-p\(pageTag)-\(language)-\(layout.rawValue)\(explicit ? "-x" : "")\(position)\"",
                headers: headers,
                body: try renderer.page(
                    snapshot, language: language, layout: layout, explicitLanguage: explicit,
                    pageSize: pageSize, before: before, river: river),
                // The first page is what nearly every reader fetches at each version: worth the
                // denser (slower) brotli setting. Older pages, fetched by few, get the fast one.
                compression: before == nil ? .dense : .perVersion,
                reusableAt: (content, pageVersion))
        }
        return representation.response(to: request)
    }

    func formRefresh(_ request: Request) async throws -> Response {
        let (language, explicit) = try language(for: request)
        var back: [String] = []
        if explicit { back.append("lang=\(language)") }
        if request.queryValue("layout")?.lowercased() == "grid" { back.append("layout=grid") }
        if let only = try riverFilter(request) { back.append(only.query) }
        do {
            _ = try await store.reload()
        } catch {
            throw refreshFailure(error)
        }
        return .redirect(to: back.isEmpty ? "/" : "/?" + back.joined(separator: "&"))
    }

    /// A failed reload as a response: `503` + `Retry-After` when the store's backend is down
    /// (retrying soon may work), `502` when the upstream failed.
    private func refreshFailure(_ error: FeedError) -> HTTPError {
        logger.warning("refresh failed: \(error.message)")
        if let seconds = error.retryAfter {
            return HTTPError(
                503, code: "store_unavailable", message: "The feed could not be refreshed: \(error.message)",
                headers: ["Retry-After": String(seconds)])
        }
        return HTTPError(
            502, code: "reload_failed", message: "The feed could not be refreshed: \(error.message)")
    }

    private func language(for request: Request) throws(HTTPError) -> (String, Bool) {
        if let requested = request.queryValue("lang") {
            let code = requested.lowercased()
            guard renderer.localizer.supports(code) else {
                throw HTTPError.badRequest(
                    "Query parameter 'lang' must be one of: \(renderer.localizer.languages.joined(separator: ", "))."
                )
            }
            return (code, true)
        }
        return (renderer.localizer.negotiate(acceptLanguage: request.headers["Accept-Language"]), false)
    }

    // MARK: API

    /// `GET /api/items`: JSON, or with `Accept: text/html` the `<li>` fragment of the same items
    /// (what "load older items in place" appends), with the next cursor in `X-Feed-Next-Cursor`.
    func items(_ request: Request) throws -> Response {
        let requested = try ItemsQuery(request)
        let only = try riverFilter(request)
        let filter = only?.tag ?? ""
        guard AcceptHeader.prefersHTML(request.headers["Accept"]) else {
            // `lang` only matters to the fragment, but a bad value is a 400 for JSON too.
            if request.queryValue("lang") != nil { _ = try language(for: request) }
            let key = ItemsKey(
                filter: only?.tag, limit: requested.limit, cursor: requested.cursor, since: requested.since,
                sinceEpoch: requested.sinceEpoch)
            return cached(itemBodies, key: key) { whole in
                let snapshot = only.map { $0.apply(to: whole) } ?? whole
                let query = requested.sinceClamped(to: snapshot)
                return Representation(
                    etag: "\"\(snapshot.position.tag)-v\(snapshot.version)\(filter)\"",
                    headers: [
                        "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-cache",
                        "Vary": "Accept",
                    ],
                    body: ItemsPayload.encode(snapshot, query: query, added: nil, sources: sources),
                    reusableAt: (revisions, snapshot.revision))
            }.response(to: request)
        }
        let (language, _) = try language(for: request)
        let key = ItemsKey(
            filter: only?.tag, limit: requested.limit, cursor: requested.cursor, since: requested.since,
            sinceEpoch: requested.sinceEpoch, fragmentLanguage: language)
        return try cached(itemBodies, key: key) { whole in
            let snapshot = only.map { $0.apply(to: whole) } ?? whole
            let query = requested.sinceClamped(to: snapshot)
            let page = snapshot.page(after: query.cursor, limit: query.limit, since: query.since)
            var headers = SecurityHeaders.html
            headers.set("Content-Type", "text/html; charset=utf-8")
            headers.set("Cache-Control", "no-cache")
            headers.set("Vary", "Accept, Accept-Language")
            headers.set("X-Feed-Version", String(snapshot.version))
            headers.set("X-Feed-Epoch", snapshot.position.tag)
            headers.set("X-Feed-Updated-At", Timestamp.iso(snapshot.updatedAt))
            if let next = page.next { headers.set("X-Feed-Next-Cursor", next.text) }
            return Representation(
                etag: "\"\(snapshot.position.tag)-f\(snapshot.version)-\(language)\(filter)\"",
                headers: headers,
                body: try renderer.fragment(page.entries.map(\.item), language: language, sources: sources),
                reusableAt: (revisions, snapshot.revision))
        }.response(to: request)
    }

    func apiRefresh(_ request: Request) async throws -> Response {
        var query = try ItemsQuery(request)
        // The body is validated even when the query also names `since` (the query wins).
        let bodySince = try ItemsQuery.since(fromBody: request.body)
        if query.since == nil { query.since = bodySince }
        let only = try riverFilter(request)
        // Without `since`, "added" is what this reload added: items newer than the version
        // published when the caller arrived, which is the one the reload it joins started from.
        let arrivedAt = store.currentVersion
        let outcome: ReloadOutcome
        do {
            outcome = try await store.reload()
        } catch {
            throw refreshFailure(error)
        }
        // A page of one source of a river refreshes with `?source=`: its items and what was added.
        let snapshot = only.map { $0.apply(to: outcome.snapshot) } ?? outcome.snapshot
        let since = query.sinceClamped(to: snapshot).since ?? arrivedAt
        let added = snapshot.entries.filter { $0.addedIn > since }
        // A storm of refreshes from readers on the same version builds each response once.
        if AcceptHeader.prefersHTML(request.headers["Accept"]) {
            let (language, _) = try language(for: request)
            let key = RefreshKey.fragment(since: since, language: language, filter: only?.tag)
            return try refreshBodies.value(version: snapshot.revision, key: key) {
                var headers = Self.refreshHeaders(snapshot, added: added.count)
                headers.set("Content-Type", "text/html; charset=utf-8")
                headers.set("Vary", "Accept, Accept-Language")
                for field in SecurityHeaders.html { headers.set(field.name, field.value) }
                let body = try renderer.fragment(added.map(\.item), language: language, sources: sources)
                return Representation(etag: nil, headers: headers, body: body)
            }.response(to: request)
        }
        let key = RefreshKey.json(since: since, limit: query.limit, cursor: query.cursor, filter: only?.tag)
        return refreshBodies.value(version: snapshot.revision, key: key) {
            var headers = Self.refreshHeaders(snapshot, added: added.count)
            headers.set("Content-Type", "application/json; charset=utf-8")
            headers.set("Vary", "Accept")
            return Representation(
                etag: nil, headers: headers,
                body: ItemsPayload.encode(snapshot, query: query, added: added, sources: sources))
        }.response(to: request)
    }

    private static func refreshHeaders(_ snapshot: FeedSnapshot, added: Int) -> HTTPHeaders {
        [
            "Cache-Control": "no-store",
            "X-Feed-Version": String(snapshot.version),
            "X-Feed-Epoch": snapshot.position.tag,
            "X-Feed-Updated-At": Timestamp.iso(snapshot.updatedAt),
            "X-Feed-Added": String(added),
        ]
    }

    /// `GET /sw.js`: the service worker from `Public/`, served at the root so its scope is
    /// the whole site, and `no-cache` so a new deployment's worker is found on the next visit.
    func serviceWorker(_ request: Request) throws -> Response {
        var response = try files.respond(relative: "sw.js", request: request)
        response.headers.set("Cache-Control", "no-cache")
        return response
    }

    /// `GET /manifest.webmanifest`: the manifest in `?lang=` (else `Accept-Language`) language.
    func webAppManifest(_ request: Request) throws -> Response {
        let (language, explicit) = try language(for: request)
        guard let response = manifest.response(to: request, language: language, explicit: explicit) else {
            throw HTTPError.notFound()
        }
        return response
    }

    func health() -> Response {
        let health = store.health
        var writer = JSONWriter(capacity: 48)
        writer.raw(health.degraded ? "{\"status\":\"degraded\"" : "{\"status\":\"ok\"")
        // The version with its epoch, from one snapshot, as every other answer names them.
        let position = store.current.position
        writer.raw(",\"version\":")
        writer.number(position.version)
        writer.raw(",\"epoch\":")
        writer.string(position.tag)
        for detail in health.details {
            writer.raw(",")
            writer.string(detail.name)
            writer.raw(":")
            writer.string(detail.value)
        }
        if let status = sourceStatus?() {
            writer.raw(status.ok ? ",\"source\":{\"ok\":true" : ",\"source\":{\"ok\":false")
            if let error = status.error {
                writer.raw(",\"error\":")
                writer.string(error)
            }
            if let recovered = status.recovered {
                writer.raw(",\"recovered\":")
                writer.string(recovered)
            }
            writer.raw("}")
        }
        if let sources { healthOfSources(sources, into: &writer) }
        writer.raw("}")
        return Response(
            headers: ["Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"],
            body: writer.bytes)
    }

    // MARK: Metrics

    /// Registers the feed's series: the current version and the byte caches' hits and misses.
    public func registerMetrics(in registry: MetricsRegistry) {
        registry.sampled("pullrefresh_feed_version", help: "Version of the feed being served.", kind: .gauge)
        {
            [store] in Double(store.currentVersion)
        }
        let caches: [(String, @Sendable () -> (hits: Int, misses: Int))] = [
            ("page", { [pages] in pages.counts }), ("items", { [itemBodies] in itemBodies.counts }),
            ("refresh", { [refreshBodies] in refreshBodies.counts }),
        ]
        for (name, counts) in caches {
            registry.sampled(
                "pullrefresh_response_cache_hits_total",
                help: "Responses served from the rendered-bytes caches.",
                kind: .counter, labels: [("cache", name)]
            ) { Double(counts().hits) }
            registry.sampled(
                "pullrefresh_response_cache_misses_total", help: "Responses the caches had to render.",
                kind: .counter, labels: [("cache", name)]
            ) { Double(counts().misses) }
        }
    }
}
