import Feed
import FeedParsing
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Logging
import Mustache
import TestSupport
import Testing

@testable import River

/// `--source` against real HTTP upstreams on loopback (`Fixtures/upstream_server.py`): the
/// fetch, the store and the routes together.
@Suite("Real upstreams over HTTP")
struct UpstreamHTTPTests {
    static let repositoryRoot = UpstreamServer.fixtures.deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The app over `path` of the fixture server, as `pullrefresh --source` wires it.
    struct Fixture {
        let server: UpstreamServer
        let source: UpstreamSource
        let app: FeedApp
        let router: Router

        init(_ path: String, limits: FetchLimits = FetchLimits(userAgent: "pullrefresh/test")) async throws {
            server = try UpstreamServer.running()
            source = UpstreamSource(url: server.url(path), limits: limits)
            let initial = try await source.fetch(current: [])
            let templates = UpstreamHTTPTests.repositoryRoot.appendingPathComponent("Templates")
            let renderer = try PageRenderer(
                library: try MustacheLibrary(directory: templates),
                localizer: try Localizer(directory: templates.appendingPathComponent("strings")))
            let store = FeedStore(initial: initial, source: source, delay: .zero, maxItems: 500)
            let source = source
            app = FeedApp(
                store: store, renderer: renderer,
                files: try StaticFiles(
                    directory: UpstreamHTTPTests.repositoryRoot.appendingPathComponent("Public").path),
                logger: Logger(quiet: true), sourceStatus: { source.status })
            router = app.router()
        }

        /// A store holding this fixture's items whose upstream is now `other`, and its routes.
        func swapped(to other: UpstreamSource) -> (FeedStore, Router) {
            let store = FeedStore(
                initial: app.store.current.items, source: other, delay: .zero, maxItems: 500)
            let app = FeedApp(
                store: store, renderer: app.renderer, files: app.files, logger: Logger(quiet: true),
                sourceStatus: { other.status })
            return (store, app.router())
        }

        func send(_ method: String, _ target: String, headers: HTTPHeaders = [:]) async throws -> Response {
            await router.respond(to: try Request(method: method, target: target, headers: headers))
        }

        func json(_ method: String, _ target: String) async throws -> [String: Any] {
            let response = try await send(method, target)
            return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
        }

        func ids() async throws -> [String] {
            (try await json("GET", "/api/items")["items"] as? [[String: Any]] ?? []).compactMap {
                $0["id"] as? String
            }
        }
    }

    static func tag() -> String { UUID().uuidString }

    @Test(arguments: [
        ("/feed/rss.xml", "tag:harbour,2026:ferry", "Ferry schedule &amp; fares"),
        ("/feed/atom.xml", "urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a", "Clear skies &amp; Jupiter"),
        ("/feed/feed.json", "2", "New books"), ("/feed/latin1.xml", "latin-1", "Crème brûlée à la carte"),
        ("/gzip.xml", "js-link", "Click me"),
    ])
    func eachFormatIsServedAsItems(path: String, id: String, title: String) async throws {
        let fixture = try await Fixture(path + "?tag=\(Self.tag())")
        #expect(try await fixture.ids().contains(id))
        let page = String(decoding: try await fixture.send("GET", "/").body, as: UTF8.self)
        #expect(page.contains("data-item-id=\"\(id)\""))
        #expect(page.contains(title))
        let health = try await fixture.json("GET", "/healthz")
        #expect((health["source"] as? [String: Any])?["ok"] as? Bool == true)
    }

    @Test func linksAreHttpOnlyWithNoopenerAndJavascriptIsText() async throws {
        let fixture = try await Fixture("/feed/rss.xml?tag=\(Self.tag())")
        let page = String(decoding: try await fixture.send("GET", "/").body, as: UTF8.self)
        let base = "http://127.0.0.1:\(fixture.server.port)"
        #expect(page.contains("<a class=\"item-link\" href=\"\(base)/news/ferry\" rel=\"noopener\">"))
        #expect(!page.contains("javascript:"))
        #expect(page.contains("<h2 class=\"item-title\">Click me</h2>"))
        let items = try await fixture.json("GET", "/api/items")["items"] as? [[String: Any]] ?? []
        let hostile = items.first { $0["id"] as? String == "js-link" }
        #expect(hostile != nil && hostile?["url"] == nil)
        #expect(
            items.first { $0["id"] as? String == "tag:harbour,2026:ferry" }?["url"] as? String
                == "\(base)/news/ferry")
    }

    @Test func etagMakesTheNextPullA304AndTheVersionStays() async throws {
        let tag = Self.tag()
        let fixture = try await Fixture("/feed/rss.xml?tag=\(tag)")
        let before = try await fixture.json("GET", "/api/items")
        let refreshed = try await fixture.json("POST", "/api/refresh")
        #expect(refreshed["version"] as? Int == before["version"] as? Int)
        #expect((refreshed["added"] as? [Any])?.isEmpty == true)
        let stats = try await fixture.server.stats("/feed/rss.xml", tag: tag)
        #expect(stats["requests"] as? Int == 2)
        #expect(stats["notModified"] as? Int == 1)
        let headers = stats["headers"] as? [String: String] ?? [:]
        #expect(headers["If-None-Match"]?.hasPrefix("\"") == true)
        #expect(headers["User-Agent"] == "pullrefresh/test")
        #expect(headers["Accept-Encoding"] == "gzip")
    }

    @Test func lastModifiedAloneAlsoRevalidates() async throws {
        let tag = Self.tag()
        let fixture = try await Fixture("/feed/atom.xml?validators=lastmod&tag=\(tag)")
        _ = try await fixture.json("POST", "/api/refresh")
        let stats = try await fixture.server.stats("/feed/atom.xml", tag: tag)
        #expect(stats["notModified"] as? Int == 1)
        #expect(
            (stats["headers"] as? [String: String])?["If-Modified-Since"] == "Thu, 01 Jan 2026 00:00:00 GMT")
    }

    /// Without validators every pull is a full `200`; undated items keep the date they were
    /// first given, so nothing changes and the version stays.
    @Test func undatedItemsKeepTheirDateAcrossFullFetches() async throws {
        let fixture = try await Fixture("/feed/atom.xml?validators=none&tag=\(Self.tag())")
        let before = fixture.app.store.current
        let undated = try #require(before.items.first { $0.id == "tag:example.org,2026:nodate" })
        for _ in 0..<2 {
            let refreshed = try await fixture.json("POST", "/api/refresh")
            #expect(refreshed["version"] as? Int == before.version)
        }
        #expect(fixture.app.store.current.items == before.items)
        #expect(fixture.app.store.current.items.first == undated)  // first seen now: the newest
    }

    @Test func aNewEntryAppearsAfterAPull() async throws {
        let fixture = try await Fixture("/live.xml?tag=\(Self.tag())")
        let before = try await fixture.json("GET", "/api/items")
        let guid = try await fixture.server.addLiveEntry(title: "Fresh")
        let refreshed = try await fixture.json("POST", "/api/refresh")
        #expect(refreshed["version"] as? Int == (before["version"] as? Int ?? 0) + 1)
        let added = (refreshed["added"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(added == [guid])
        #expect(try await fixture.ids().first == guid)
    }

    /// Each failure: the pull answers 502 with the envelope naming the reason, the old items
    /// stay, `/healthz` says why, and the server keeps serving.
    @Test(arguments: [
        ("/loop", "redirected more than 5 times"), ("/hop/5", "redirected more than 5 times"),
        ("/to-file", "fetching from"), ("/truncated.xml", "fetching from"),
        ("/feed/rss.xml?type=text/html", "text/html, not a feed"),
        ("/feed/invalid.xml", "body is not XML"),
        ("/laughs.xml", "declares XML entities"), ("/xxe.xml?file=/etc/hostname", "declares XML entities"),
        ("/xxe-dtd.xml?file=/etc/hostname", "names a non-web DTD (file:), an XXE attempt"),
        ("/nowhere", "HTTP 404"),
    ])
    func aFailedPullKeepsTheLastGoodVersion(path: String, reason: String) async throws {
        let fixture = try await Fixture("/feed/rss.xml?tag=\(Self.tag())")
        let before = try await fixture.json("GET", "/api/items")
        // A store holding those items whose upstream has gone bad.
        let broken = UpstreamSource(
            url: fixture.server.url(path), limits: FetchLimits(totalTimeout: 5, userAgent: "pullrefresh/test")
        )
        let (_, router) = fixture.swapped(to: broken)
        let response = await router.respond(to: try Request(method: "POST", target: "/api/refresh"))
        #expect(response.status == 502)
        let envelope = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let error = envelope?["error"] as? [String: String]
        #expect(error?["code"] == "reload_failed")
        #expect(error?["message"]?.contains(reason) == true, "\(error?["message"] ?? "")")
        let items = await router.respond(to: try Request(method: "GET", target: "/api/items"))
        #expect(items.status == 200)
        let after = try JSONSerialization.jsonObject(with: Data(items.body)) as? [String: Any]
        #expect(after?["version"] as? Int == before["version"] as? Int)
        #expect((after?["items"] as? [Any])?.count == (before["items"] as? [Any])?.count)
        let health = await router.respond(to: try Request(method: "GET", target: "/healthz"))
        let source = (try JSONSerialization.jsonObject(with: Data(health.body)) as? [String: Any])?["source"]
        #expect((source as? [String: Any])?["ok"] as? Bool == false)
        #expect(((source as? [String: Any])?["error"] as? String)?.contains(reason) == true)
    }

    /// Credentials in the source URL (user, password, a token in the query) never reach a
    /// client or the log.
    @Test func errorsNeverShowCredentialsFromTheURL() async throws {
        let server = try UpstreamServer.running()
        let source = UpstreamSource(
            url: URL(string: "http://alice:s3cret@127.0.0.1:\(server.port)/nowhere?token=t0ken")!,
            limits: FetchLimits(userAgent: "pullrefresh/test"))
        do {
            _ = try await source.fetch(current: [])
            Issue.record("a 404 was accepted")
        } catch {
            let message = "\(error) \(source.status.error ?? "")"
            #expect(
                message.contains(
                    "upstream http://127.0.0.1:\(server.port)/nowhere?…: 127.0.0.1 answered HTTP 404"))
            #expect(!message.contains("s3cret") && !message.contains("t0ken") && !message.contains("alice"))
        }
    }

    @Test func fiveRedirectsAreFollowed() async throws {  // /hop/4 → /hop/3 … /hop/0 → the feed
        let fixture = try await Fixture("/hop/4?tag=\(Self.tag())")
        #expect(try await fixture.ids().contains("js-link"))
    }

    @Test func aSlowUpstreamTimesOutAndTheServerKeepsServing() async throws {
        let limits = FetchLimits(connectTimeout: 1, totalTimeout: 1, userAgent: "pullrefresh/test")
        let fixture = try await Fixture("/feed/rss.xml?tag=\(Self.tag())")
        let slow = UpstreamSource(url: fixture.server.url("/slow.xml?s=20&tag=\(Self.tag())"), limits: limits)
        let (store, router) = fixture.swapped(to: slow)
        let pull = Task { await router.respond(to: try Request(method: "POST", target: "/api/refresh")) }
        // While the pull waits on the upstream, reads are answered from the current version.
        let page = await router.respond(to: try Request(method: "GET", target: "/"))
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("data-item-id=\"js-link\""))
        let failed = try await pull.value
        #expect(failed.status == 502)
        #expect(
            String(decoding: failed.body, as: UTF8.self).contains("timed out: it did not finish within 1.0 s")
        )
        #expect(store.current.version == 1)
        #expect(store.current.items == fixture.app.store.current.items)
        #expect(slow.status.ok == false)
        #expect(slow.status.error?.contains("timed out") == true)
    }

    /// The connect timeout is its own bound: it fires long before the total one.
    @Test func anUnansweredConnectTimesOutOnTheConnectTimeout() async throws {
        let server = try UpstreamServer.running()
        let source = UpstreamSource(
            url: URL(string: "http://127.0.0.1:\(server.blackholePort)/feed.xml")!,
            limits: FetchLimits(connectTimeout: 0.3, totalTimeout: 600, userAgent: "pullrefresh/test"))
        do {
            _ = try await source.fetch(current: [])
            Issue.record("a connection that never completes was accepted")
        } catch {
            #expect("\(error)".contains("timed out: it could not be connected to within 0.3 s"), "\(error)")
        }
    }

    @Test func aHugeBodyIsCutOffWhileReading() async throws {
        let server = try UpstreamServer.running()
        let tag = Self.tag()
        let source = UpstreamSource(
            url: server.url("/huge.xml?tag=\(tag)"), limits: FetchLimits(maxBytes: 1 << 20, userAgent: "t"))
        do {
            _ = try await source.fetch(current: [])
            Issue.record("a 50 MB body was accepted")
        } catch {
            #expect("\(error)".contains("more than the limit of 1048576 bytes"), "\(error)")
        }
        // The server stops writing once the connection is gone: it never got to send it all.
        var sent: Int?
        for _ in 0..<200 where sent == nil {
            sent = try await server.stats("/huge.xml", tag: tag)["bytesSent"] as? Int
            if sent == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let total = try #require(sent)
        #expect(total < 50_000_000)
    }
}
