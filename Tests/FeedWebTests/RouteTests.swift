import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

@Suite("Every route through the router, without sockets")
struct RouteTests {
    let app: FeedApp
    let router: Router
    let root: URL

    init() throws {
        (app, root) = try Fixtures.app()
        router = app.router()
    }

    func get(_ target: String, headers: HTTPHeaders = [:]) async throws -> Response {
        await router.respond(to: try Request(method: "GET", target: target, headers: headers))
    }

    func post(_ target: String, body: String = "", headers: HTTPHeaders = [:]) async throws -> Response {
        await router.respond(
            to: try Request(method: "POST", target: target, headers: headers, body: Array(body.utf8)))
    }

    @Test func pageHasTheContractMarkupAndSecurityHeaders() async throws {
        let response = try await get("/")
        let html = Fixtures.text(response)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(html.contains("data-ptr-list"))
        #expect(html.components(separatedBy: "data-item-id=").count - 1 == 5)
        #expect(html.contains("<form class=\"feed-refresh\" method=\"post\" action=\"/refresh\">"))
        #expect(html.contains("name=\"viewport\""))
        #expect(html.contains("/static/pull-to-refresh.js"))
        #expect(html.contains("data-ptr-updated datetime="))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("style=\""))
        let csp = try #require(response.headers["Content-Security-Policy"])
        #expect(csp.contains("script-src 'self'"))
        #expect(csp.contains("style-src 'self'"))
        #expect(!csp.contains("unsafe-inline"))
        #expect(csp.contains("frame-ancestors 'none'"))
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] != nil)
    }

    @Test(
        arguments: [
            ("/?lang=tr", [:], "lang=\"tr\"", "Yenile"),
            ("/?lang=ko", [:], "lang=\"ko\"", "새로고침"),
            ("/?lang=JA", [:], "lang=\"ja\"", "更新"),
            ("/", ["Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"], "lang=\"ko\"", "새로고침"),
            ("/", ["Accept-Language": "fr-FR, tr;q=0.8, en;q=0.5"], "lang=\"tr\"", "Yenile"),
            ("/", ["Accept-Language": "de"], "lang=\"en\"", "Refresh"),
        ] as [(String, HTTPHeaders, String, String)])
    func chosesTheLanguage(target: String, headers: HTTPHeaders, lang: String, refresh: String) async throws {
        let html = Fixtures.text(try await get(target, headers: headers))
        #expect(html.contains(lang))
        #expect(html.contains(">\(refresh)</button>"))
    }

    @Test func explicitLanguageIsKeptByTheForm() async throws {
        let html = Fixtures.text(try await get("/?lang=tr&layout=grid"))
        #expect(html.contains("action=\"/refresh?lang=tr&amp;layout=grid\""))
        #expect(html.contains("feed-list--grid"))
    }

    @Test func badLanguageOrLayoutIs400Html() async throws {
        for target in ["/?lang=xx", "/?layout=table"] {
            let response = try await get(target)
            #expect(response.status == 400)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.headers["Content-Security-Policy"] != nil)
        }
    }

    @Test func pageEtagGives304() async throws {
        let first = try await get("/")
        let etag = try #require(first.headers["ETag"])
        let again = try await get("/", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        _ = try await post("/api/refresh")
        let changed = try await get("/", headers: ["If-None-Match": etag])
        #expect(changed.status == 200)
    }

    /// Cached bodies are shared copy-on-write, so two answers from the cache are the very same
    /// buffer; a re-render would allocate a new one.
    @Test(arguments: ["/", "/?lang=ko&layout=grid", "/api/items", "/api/items?limit=3"])
    func unchangedVersionServesTheCachedBytes(target: String) async throws {
        func address(_ response: Response) -> UnsafeRawPointer? {
            response.body.withUnsafeBytes { $0.baseAddress }
        }
        let first = try await get(target)
        let second = try await get(target)
        #expect(first.body == second.body)
        #expect(address(first) == address(second))
        _ = try await post("/api/refresh")
        let third = try await get(target)
        #expect(address(third) != address(first))
    }

    @Test func itemsApiShapeAndPaging() async throws {
        let response = try await get("/api/items?limit=2")
        #expect(response.status == 200)
        #expect(response.headers["Cache-Control"] == "no-cache")
        let json = try Fixtures.json(response)
        #expect(json["version"] as? Int == 1)
        #expect(json["updatedAt"] is String)
        let items = try #require(json["items"] as? [[String: Any]])
        #expect(items.map { $0["id"] as? String } == ["5", "4"])
        let cursor = try #require(json["nextCursor"] as? String)
        let next = try Fixtures.json(try await get("/api/items?limit=2&cursor=\(cursor)"))
        #expect((next["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["3", "2"])
        let last = try Fixtures.json(
            try await get("/api/items?limit=2&cursor=\(next["nextCursor"] as! String)"))
        #expect((last["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["1"])
        #expect(last["nextCursor"] is NSNull)
    }

    @Test func itemsApiCarriesTheImageButThePageDoesNotLinkIt() async throws {
        var pictured = FeedSamples.item(9, title: "Pictured")
        pictured.image = "https://img.example.org/9.jpg"
        let (app, _) = try Fixtures.app(initial: [pictured, FeedSamples.item(1)])
        let router = app.router()
        let api = try Fixtures.json(
            await router.respond(to: try Request(method: "GET", target: "/api/items", headers: [:])))
        let items = try #require(api["items"] as? [[String: Any]])
        #expect(items.map { $0["image"] as? String } == ["https://img.example.org/9.jpg", nil])
        let page = Fixtures.text(
            await router.respond(to: try Request(method: "GET", target: "/", headers: [:])))
        #expect(page.contains("Pictured"))
        #expect(!page.contains("img.example.org"))
        // The picture comes through the thumbnail route, in a fixed 80 px slot at 1x/2x/3x.
        #expect(
            page.contains(
                "<img class=\"item-thumb\" src=\"/img/9?w=96\" srcset=\"/img/9?w=96 1x, /img/9?w=160 2x, "
                    + "/img/9?w=240 3x\" width=\"80\" height=\"80\" alt=\"\" loading=\"lazy\" decoding=\"async\">"
            ))
        #expect(page.components(separatedBy: "<img ").count == 2, "only the pictured item has one")
        let grid = Fixtures.text(
            await router.respond(to: try Request(method: "GET", target: "/?layout=grid", headers: [:])))
        #expect(
            grid.contains(
                "srcset=\"/img/9?w=96 1x, /img/9?w=240 2x, /img/9?w=320 3x\" width=\"96\" height=\"96\""))
    }

    @Test func thumbnailPathsPercentEncodeTheId() {
        #expect(
            ThumbnailSlot.path(itemID: "tag:a.org,2026:x/y z", width: 160)
                == "/img/tag%3Aa.org%2C2026%3Ax%2Fy%20z?w=160")
        #expect(ThumbnailSlot.path(itemID: "ü\"<", width: 96) == "/img/%C3%BC%22%3C?w=96")
        #expect(ThumbnailSlot.list.candidates == [96, 160, 240])
        #expect(ThumbnailSlot.grid.candidates == [96, 240, 320])
    }

    @Test(arguments: [
        ("/api/items?limit=abc", "limit"), ("/api/items?limit=0", "limit"), ("/api/items?limit=101", "limit"),
        ("/api/items?since=-1", "since"), ("/api/items?since=x", "since"), ("/api/items?cursor=zz", "cursor"),
        ("/api/items?cursor=1.0", "cursor"), ("/api/items?cursor=1795960421463.11", "cursor"),
        ("/api/items?cursor=MTc5NTk2MDQyMTQ2My4xMQ", "cursor"), ("/api/items?cursor=c12.", "cursor"),
        ("/api/items?cursor=c12.3", "cursor"), ("/api/items?cursor=c12.zz", "cursor"),
        ("/api/items?cursor=c.31", "cursor"),
        ("/api/items?cursor=c12.3A", "cursor"),
    ])
    func badQueryValuesAre400NamingTheParameter(target: String, parameter: String) async throws {
        let response = try await get(target)
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        let error = try #require(try Fixtures.json(response)["error"] as? [String: String])
        #expect(error["message"]?.contains("'\(parameter)'") == true)
        #expect(error["code"]?.isEmpty == false)
    }

    @Test func itemsEtagAnd304() async throws {
        let first = try await get("/api/items")
        let etag = try #require(first.headers["ETag"])
        #expect(try await get("/api/items", headers: ["If-None-Match": etag]).status == 304)
        #expect(try await get("/api/items", headers: ["If-None-Match": "W/\(etag)"]).status == 304)
        #expect(try await get("/api/items", headers: ["If-None-Match": "\"other\", \(etag)"]).status == 304)
        #expect(try await get("/api/items", headers: ["If-None-Match": "\"other\""]).status == 200)
    }

    @Test func refreshReturnsAddedSinceFromQueryOrBody() async throws {
        let viaQuery = try Fixtures.json(try await post("/api/refresh?since=1"))
        #expect(viaQuery["version"] as? Int == 2)
        let added = try #require(viaQuery["added"] as? [[String: Any]])
        #expect(!added.isEmpty)
        #expect(added.allSatisfy { ($0["version"] as? Int) == 2 })
        let viaBody = try Fixtures.json(
            try await post(
                "/api/refresh", body: "{\"since\": 1}", headers: ["Content-Type": "application/json"]))
        #expect(viaBody["version"] as? Int == 3)
        #expect((viaBody["added"] as? [Any])?.count ?? 0 > added.count)
        // Without `since`, "added" is what this reload added: the items of the new version.
        let noSince = try Fixtures.json(try await post("/api/refresh"))
        #expect(noSince["version"] as? Int == 4)
        let addedNow = try #require(noSince["added"] as? [[String: Any]])
        #expect(!addedNow.isEmpty)
        #expect(addedNow.allSatisfy { ($0["version"] as? Int) == 4 })
    }

    @Test(arguments: [
        "not json", "{\"since\":\"x\"}", "{\"since\":-1}", "{\"since\":1.5}", "[1]", "{\"since\":true}",
    ])
    func badRefreshBodiesAre400(body: String) async throws {
        let response = try await post("/api/refresh", body: body)
        #expect(response.status == 400)
        let error = try #require(try Fixtures.json(response)["error"] as? [String: String])
        #expect(error["message"]?.isEmpty == false)
    }

    @Test func refreshAsHtmlFragment() async throws {
        let response = try await post("/api/refresh?since=1", headers: ["Accept": "text/html"])
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["X-Feed-Version"] == "2")
        let added = try #require(Int(response.headers["X-Feed-Added"] ?? ""))
        let html = Fixtures.text(response)
        #expect(html.components(separatedBy: "<li class=\"item\" data-item-id=").count - 1 == added)
        #expect(!html.contains("<html"))
        let none = try await post("/api/refresh?since=999", headers: ["Accept": "text/html"])
        #expect(none.status == 200)
    }

    @Test func failedReloadIs502AndKeepsData() async throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.json")
        try FeedSamples.writeData([FeedSamples.item(1)], to: file)
        let source = FileSource(path: file.path)
        let (app, _) = try Fixtures.app(source: source, initial: try source.load())
        let router = app.router()
        try "{ broken".write(to: file, atomically: true, encoding: .utf8)
        let response = await router.respond(to: Request(method: "POST", path: "/api/refresh"))
        #expect(response.status == 502)
        let error = try #require(try Fixtures.json(response)["error"] as? [String: String])
        #expect(error["code"] == "reload_failed")
        #expect(error["message"]?.contains("not valid JSON") == true)
        let items = try Fixtures.json(await router.respond(to: Request(method: "GET", path: "/api/items")))
        #expect((items["items"] as? [[String: Any]])?.map { $0["id"] as? String } == ["1"])
        let page = await router.respond(to: Request(method: "POST", path: "/refresh"))
        #expect(page.status == 502)
        #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
    }

    @Test func formRefreshRedirects303() async throws {
        let response = try await post("/refresh")
        #expect(response.status == 303)
        #expect(response.headers["Location"] == "/")
        let withLang = try await post("/refresh?lang=ko&layout=grid")
        #expect(withLang.headers["Location"] == "/?lang=ko&layout=grid")
        #expect(app.store.current.version == 3)
    }

    @Test func healthAndOpenAPI() async throws {
        let health = try Fixtures.json(try await get("/healthz"))
        #expect(health["status"] as? String == "ok")
        #expect(health["version"] as? Int == 1)
        // Like every other answer, the version with the epoch it counts in: a number alone may
        // repeat when a cluster begins a new epoch.
        #expect(health["epoch"] as? String == app.store.current.position.tag)
        let items = try Fixtures.json(try await get("/api/items"))
        #expect(health["epoch"] as? String == items["epoch"] as? String)
        let spec = try Fixtures.json(try await get("/api/openapi.json"))
        #expect(spec["openapi"] as? String == "3.1.0")
        let paths = try #require(spec["paths"] as? [String: Any])
        #expect(
            Set(paths.keys) == [
                "/api/items", "/api/refresh", "/api/sources", "/api/sources/{key}", "/api/sources.opml",
                "/api/openapi.json", "/healthz",
            ])
        // Without real upstreams there are no sources, and no source to filter by.
        #expect((try Fixtures.json(try await get("/api/sources"))["sources"] as? [Any])?.isEmpty == true)
        #expect(try await get("/api/items?source=0123456789ab").status == 404)
        #expect(try await get("/api/items?source=x").status == 400)
    }

    @Test func apiErrorsUseTheEnvelopeAndHtmlElsewhere() async throws {
        let missing = try await get("/api/nope")
        #expect(missing.status == 404)
        #expect(try Fixtures.json(missing)["error"] != nil)
        let wrong = try await get("/api/refresh")
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "POST")
        #expect((try Fixtures.json(wrong)["error"] as? [String: String])?["code"] == "method_not_allowed")
        let page404 = try await get("/nope")
        #expect(page404.status == 404)
        #expect(Fixtures.text(page404).contains("<!doctype html>"))
        #expect(page404.headers["Content-Security-Policy"] != nil)
    }

    @Test func staticFilesHaveTypesEtagsAnd304() async throws {
        let script = try await get("/static/pull-to-refresh.js")
        #expect(script.status == 200)
        #expect(script.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.headers["Cache-Control"]?.contains("max-age") == true)
        let etag = try #require(script.headers["ETag"])
        #expect(try await get("/static/pull-to-refresh.js", headers: ["If-None-Match": etag]).status == 304)
        #expect(try await get("/static/app.css").headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(
            try await get("/static/img/logo.svg").headers["Content-Type"] == "image/svg+xml; charset=utf-8")
    }

    @Test func sourceMapsAreServedAsJSON() async throws {
        let map = #"{"version":3,"sources":["../Client/src/attach.mjs"],"mappings":""}"#
        try map.write(
            to: root.appendingPathComponent("Public/pull-to-refresh.js.map"), atomically: true,
            encoding: .utf8)
        let response = try await get("/static/pull-to-refresh.js.map")
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(Fixtures.text(response) == map)
    }

    @Test(arguments: [
        ("pull-to-refresh.js", "text/javascript; charset=utf-8"),
        ("gesture-core.mjs", "text/javascript; charset=utf-8"),
        ("pull-to-refresh.css", "text/css; charset=utf-8"),
        ("pull-to-refresh.js.map", "application/json; charset=utf-8"),
        ("pull-to-refresh.css.map", "application/json; charset=utf-8"),
    ])
    func clientAssetTypes(name: String, type: String) {
        #expect(StaticFiles.contentType(for: name) == type)
    }

    /// The committed bundles in the repository's Public/ are what `swift run` serves: the
    /// gesture's script and stylesheet, the page's feed.js and the service worker, each script
    /// with its source map named by a `SourceMap` header rather than a `sourceMappingURL` line
    /// (the stylesheet has no map), and no separate state-machine module any more.
    @Test func theRepositoryServesTheBuiltClient() throws {
        let files = try StaticFiles(
            directory: Fixtures.repositoryRoot.appendingPathComponent("Public").path)
        let expected = [
            ("pull-to-refresh.js", "text/javascript; charset=utf-8", "\"touchmove\""),
            ("pull-to-refresh.js.map", "application/json; charset=utf-8", "\"sourcesContent\""),
            ("pull-to-refresh.css", "text/css; charset=utf-8", "@keyframes ptr-spin"),
            ("feed.js", "text/javascript; charset=utf-8", "RelativeTimeFormat"),
            ("feed.js.map", "application/json; charset=utf-8", "\"sourcesContent\""),
            ("sw.js", "text/javascript; charset=utf-8", "waitUntil"),
        ]
        for (name, type, marker) in expected {
            let response = try files.respond(
                relative: name, request: try Request(method: "GET", target: "/static/" + name))
            #expect(response.status == 200, "\(name)")
            #expect(response.headers["Content-Type"] == type, "\(name)")
            #expect(Fixtures.text(response).contains(marker), "\(name)")
            #expect(!Fixtures.text(response).contains("sourceMappingURL"), "\(name)")
            let map = name.hasSuffix(".js") ? "/static/\(name).map" : nil
            #expect(response.headers["SourceMap"] == map, "\(name)")
        }
        for gone in ["ptr-core.mjs", "pull-to-refresh.css.map"] {
            #expect(throws: HTTPError.self, "\(gone)") {
                try files.respond(
                    relative: gone, request: try Request(method: "GET", target: "/static/" + gone))
            }
        }
    }

    @Test(arguments: [
        "/static/", "/static/img", "/static/img/", "/static/../secret.txt", "/static/%2e%2e/secret.txt",
        "/static/img/%2E%2E/%2e%2e/secret.txt", "/static/..%2fsecret.txt", "/static/.env", "/static/%2eenv",
        "/static/escape.txt", "/static/img//logo.svg", "/static/./app.css", "/static/%252e%252e/secret.txt",
        "/static/..%5csecret.txt", "/static/nope.js",
    ])
    func noWayOutOfPublic(target: String) async throws {
        let response = try await get(target)
        #expect(response.status == 404, "\(target)")
        #expect(!Fixtures.text(response).contains("TOP SECRET"))
    }

    @Test func editedStaticFilesAreServedWithinASecond() async throws {
        let first = try await get("/static/app.css")
        try "body{margin:1px}\n".write(
            to: root.appendingPathComponent("Public/app.css"), atomically: true, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(1100))
        let second = try await get("/static/app.css")
        #expect(Fixtures.text(second) == "body{margin:1px}\n")
        #expect(second.headers["ETag"] != first.headers["ETag"])
        try FileManager.default.removeItem(at: root.appendingPathComponent("Public/app.css"))
        try await Task.sleep(for: .milliseconds(1100))
        #expect(try await get("/static/app.css").status == 404)
    }

    @Test func staticRejectsNulAndBadEscapesAs400() async throws {
        #expect(throws: HTTPError.self) { try Request(method: "GET", target: "/static/app.css%00.js") }
    }
}

@Suite("Hostile item text")
struct HostileTextTests {
    static let nasty = [
        "<script>alert(1)</script>", "\"quoted\" & 'single'", "{{title}} {{{body}}}", "emoji 🎉👩‍👩‍👧",
        "RTL \u{202E}txet\u{202C} שלום مرحبا",
    ]

    @Test func everythingIsEscapedInHtmlAndExactInJson() async throws {
        let items = Self.nasty.enumerated().map { index, text in
            FeedSamples.item(index + 1, title: text, body: "body " + text)
        }
        let (app, _) = try Fixtures.app(initial: items)
        let router = app.router()
        let html = Fixtures.text(await router.respond(to: Request(method: "GET", path: "/")))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;quoted&quot; &amp; &#39;single&#39;"))
        #expect(html.contains("{{title}} {{{body}}}"))
        #expect(html.contains("emoji 🎉👩‍👩‍👧"))
        #expect(html.contains("שלום مرحبا"))
        let json = try Fixtures.json(await router.respond(to: Request(method: "GET", path: "/api/items")))
        let titles = (json["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? []
        #expect(Set(titles) == Set(Self.nasty))
        let raw = Fixtures.text(await router.respond(to: Request(method: "GET", path: "/api/items")))
        #expect(!raw.contains("<script>"))
    }
}
