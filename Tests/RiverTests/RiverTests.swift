import Feed
import FeedParsing
import FeedWeb
import Foundation
import HTTPClient
import HTTPServer
import Logging
import Mustache
import Storage
import Synchronization
import TestSupport
import Testing

@testable import River

/// A time the test moves by hand: the river's `now`.
final class TestTime: Sendable {
    private let date: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        date = Mutex(start)
    }

    var now: Date { date.withLock { $0 } }

    func advance(_ seconds: Double) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Several real feeds on loopback (`Fixtures/river_server.py`) as one river: the fetch, the
/// store and the routes together.
@Suite("A river of feeds over HTTP")
struct RiverTests {
    /// A river over `names`, its store and its routes.
    struct Fixture {
        let server: RiverServer
        let names: [String]
        let river: River
        let store: FeedStore
        let app: FeedApp
        let router: Router

        init(
            _ names: [String], refreshEvery: Duration? = nil, time: TestTime? = nil, pageSize: Int = 30,
            limits: FetchLimits = FetchLimits(totalTimeout: 5, userAgent: "pullrefresh/test"),
            history: SourceHistory = SourceHistory(), maxItems: Int = 500, database: FeedDatabase? = nil
        ) async throws {
            server = try RiverServer.running()
            self.names = names
            let server = server
            let clock = time
            @Sendable func now() -> Date { clock?.now ?? Date() }
            river = River(
                subscriptions: names.map { Subscription(url: server.url($0)) }, limits: limits,
                refreshEvery: refreshEvery, history: history, now: now, random: { 0.5 })
            if let database {
                // As `pullrefresh --database` starts on a new file: states in the database, the
                // first snapshot written before it is served.
                await river.useStateStore(database)
                let first = FeedStore.firstSnapshot(
                    of: try await river.fetch(current: []), maxItems: maxItems, at: now())
                try database.write(
                    first, replacing: FeedSnapshot(version: 0, updatedAt: first.updatedAt, entries: []))
                store = FeedStore(
                    restoring: first, record: database, source: river, delay: .zero, maxItems: maxItems)
            } else {
                let initial = try await river.fetch(current: [])
                store = FeedStore(initial: initial, source: river, delay: .zero, maxItems: maxItems)
            }
            let templates = UpstreamHTTPTests.repositoryRoot.appendingPathComponent("Templates")
            let renderer = try PageRenderer(
                library: try MustacheLibrary(directory: templates),
                localizer: try Localizer(directory: templates.appendingPathComponent("strings")))
            app = FeedApp(
                store: store, renderer: renderer,
                files: try StaticFiles(
                    directory: UpstreamHTTPTests.repositoryRoot.appendingPathComponent("Public").path),
                logger: Logger(quiet: true), pageSize: pageSize, sources: river)
            router = app.router()
        }

        func key(_ name: String) -> String { SourceKey.of(server.url(name)) }

        func send(_ method: String, _ target: String) async throws -> Response {
            await router.respond(to: try Request(method: method, target: target, headers: [:]))
        }

        func json(_ method: String, _ target: String) async throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(try await send(method, target).body))
                as? [String: Any] ?? [:]
        }

        func ids(_ query: String = "") async throws -> [String] {
            (try await json("GET", "/api/items\(query)")["items"] as? [[String: Any]] ?? []).compactMap {
                $0["id"] as? String
            }
        }

        func report(_ name: String) -> SourceReport? {
            river.reports.first { $0.label.key == key(name) }
        }

        /// A reload as the schedule runs it.
        func scheduledReload() async throws {
            _ = try await ReloadTrigger.$isScheduled.withValue(true) { try await store.reload() }
        }
    }

    @Test func sourcesAreMergedNewestFirstWithUniqueIDsAndFiltered() async throws {
        let (a, b) = (RiverServer.name("a"), RiverServer.name("b"))
        let server = try RiverServer.running()
        try await server.add(a, guid: "a2")
        let fixture = try await Fixture([a, b], pageSize: 1)
        let (keyA, keyB) = (fixture.key(a), fixture.key(b))
        // Both feeds name an item "same": the river keeps both, told apart by their key.
        // Newest first; the two "same" items share a date, so the larger id goes first.
        let same = ["\(keyA):same", "\(keyB):same"].sorted { $1.utf8.lexicographicallyPrecedes($0.utf8) }
        #expect(try await fixture.ids() == ["\(keyA):a2"] + same)
        #expect(try await fixture.ids("?source=\(keyB)") == ["\(keyB):same"])
        let items =
            try await fixture.json("GET", "/api/items?source=\(keyA)")["items"] as? [[String: Any]] ?? []
        #expect(
            items.map { $0["source"] as? [String: String] }
                == Array(repeating: ["key": keyA, "title": "Feed \(a)"], count: 2))
        let page = String(decoding: try await fixture.send("GET", "/?source=\(keyA)").body, as: UTF8.self)
        #expect(page.contains("data-item-id=\"\(keyA):a2\""))
        #expect(!page.contains("data-item-id=\"\(keyB):same\""))
        // The older-items link keeps the filter, and so does its page.
        #expect(page.contains("&amp;source=\(keyA)\" rel=\"next\""))
        #expect(
            page.contains(
                "<a class=\"item-source-link\" href=\"https://\(a).example.org/\" rel=\"noopener\">Feed \(a)</a>"
            ))
        let older = try #require(page.firstMatch(of: /data-ptr-older="([^"]+)"/).map { String($0.1) })
        let second = String(
            decoding: try await fixture.send("GET", "/?before=\(older)&source=\(keyA)").body, as: UTF8.self)
        #expect(second.contains("data-item-id=\"\(keyA):same\""))
        #expect(!second.contains("\(keyB):same"))
        // With JavaScript the filtered page pulls and catches up with the filter too.
        #expect(page.contains("data-ptr-endpoint=\"/api/refresh?source=\(keyA)\""))
        #expect(page.contains("data-ptr-live-endpoint=\"/api/items?limit=100&amp;source=\(keyA)\""))
        try await server.add(b, guid: "b2")
        let filtered = try await fixture.json("POST", "/api/refresh?source=\(keyA)&since=1")
        #expect((filtered["added"] as? [Any])?.isEmpty == true)
        #expect((filtered["items"] as? [[String: Any]])?.count == 2)
        #expect(try await fixture.ids("?source=\(keyB)&since=1") == ["\(keyB):b2"])
        #expect(try await fixture.send("GET", "/api/items?source=000000000000").status == 404)
        #expect(try await fixture.send("GET", "/?source=nope").status == 400)
        #expect(try await fixture.send("GET", "/api/items?source=\(keyA)x").status == 400)
    }

    @Test(arguments: ["mode=500", "mode=invalid", "mode=slow&delay=3"])
    func oneFailingSourceKeepsItsItemsWhileTheOthersUpdate(failure: String) async throws {
        let names = [RiverServer.name("ok"), RiverServer.name("also"), RiverServer.name("broken")]
        let fixture = try await Fixture(
            names, limits: FetchLimits(connectTimeout: 1, totalTimeout: 1, userAgent: "pullrefresh/test"))
        let server = fixture.server
        try await server.set(names[2], failure)
        try await server.add(names[0], guid: "fresh")
        let refreshed = try await fixture.json("POST", "/api/refresh")
        let added = (refreshed["added"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(added == ["\(fixture.key(names[0])):fresh"])
        #expect(try await fixture.ids().contains("\(fixture.key(names[2])):same"))
        let report = try #require(fixture.report(names[2]))
        #expect(report.isFailing)
        let page = String(decoding: try await fixture.send("GET", "/").body, as: UTF8.self)
        #expect(page.contains("<summary>1 of 3 feeds could not be reached</summary>"))
        #expect(page.contains("<span class=\"feed-source-title\">Feed \(names[2])</span>"))
        let japanese = String(decoding: try await fixture.send("GET", "/?lang=ja").body, as: UTF8.self)
        #expect(japanese.contains("3件中1件のフィードに接続できませんでした"))
        let health = try await fixture.json("GET", "/healthz")
        let sources = health["sources"] as? [String: Any]
        #expect(sources?["ok"] as? Int == 2)
        #expect((sources?["failing"] as? [[String: Any]])?.first?["key"] as? String == fixture.key(names[2]))
        // It answers again: the line goes away on the next request, with no new feed version.
        try await server.set(names[2], "mode=ok")
        let version = fixture.store.currentVersion
        _ = try await fixture.send("POST", "/api/refresh")
        #expect(fixture.store.currentVersion == version)
        let healed = String(decoding: try await fixture.send("GET", "/").body, as: UTF8.self)
        #expect(!healed.contains("feeds could not be reached"))
    }

    @Test func everySourceFailingIs502AndTheRiverStays() async throws {
        let names = [RiverServer.name("x"), RiverServer.name("y")]
        let fixture = try await Fixture(names)
        let before = try await fixture.ids()
        for name in names { try await fixture.server.set(name, "mode=500") }
        let response = try await fixture.send("POST", "/api/refresh")
        #expect(response.status == 502)
        #expect(String(decoding: response.body, as: UTF8.self).contains("all 2 sources failed"))
        #expect(try await fixture.ids() == before)
        #expect(before.count == 2)
    }

    @Test func maxAgeHoldsTheScheduleBackButAPullRevalidates() async throws {
        let name = RiverServer.name("fresh")
        let server = try RiverServer.running()
        try await server.set(name, "maxage=100")
        let time = TestTime()
        let fixture = try await Fixture([name], refreshEvery: .seconds(1), time: time)
        #expect(try await server.stats(name)["requests"] == 1)
        time.advance(5)
        try await fixture.scheduledReload()
        #expect(try await server.stats(name)["requests"] == 1, "fetched before max-age ran out")
        _ = try await fixture.store.reload()  // a pull
        #expect(
            try await server.stats(name) == [
                "requests": 2, "ok": 1, "notModified": 1, "failed": 0, "conditional": 1,
            ])
        time.advance(99)
        try await fixture.scheduledReload()
        #expect(try await server.stats(name)["requests"] == 2, "the 304's max-age counts from the pull")
        time.advance(2)
        try await fixture.scheduledReload()
        #expect(try await server.stats(name)["requests"] == 3)
    }

    @Test func retryAfterHoldsBackPullsAndTheSchedule() async throws {
        let name = RiverServer.name("busy")
        let time = TestTime()
        let fixture = try await Fixture([name], refreshEvery: .seconds(1), time: time)
        try await fixture.server.set(name, "mode=429&retry=60")
        #expect(try await fixture.send("POST", "/api/refresh").status == 502)
        #expect(try await fixture.server.stats(name)["requests"] == 2)
        time.advance(30)
        #expect(try await fixture.send("POST", "/api/refresh").status == 502)
        try await fixture.scheduledReload()
        #expect(try await fixture.server.stats(name)["requests"] == 2, "asked again before Retry-After")
        try await fixture.server.set(name, "mode=ok")
        time.advance(31)
        #expect(try await fixture.send("POST", "/api/refresh").status == 200)
        #expect(try await fixture.server.stats(name)["requests"] == 3)
    }

    @Test func backOffGrowsWhileFailingAndResetsOnSuccess() async throws {
        let (good, bad) = (RiverServer.name("good"), RiverServer.name("bad"))
        let server = try RiverServer.running()
        try await server.set(bad, "mode=503")
        let time = TestTime()
        // random() = 0.5: the jitter factor is exactly 1, so the waits are the plain doubling.
        let fixture = try await Fixture([good, bad], refreshEvery: .seconds(1), time: time)
        var waits: [Double] = []
        for _ in 0..<4 {
            let report = try #require(fixture.report(bad))
            let next = try #require(report.nextFetch)
            waits.append(next.timeIntervalSince(time.now))
            time.advance(next.timeIntervalSince(time.now))
            try await fixture.scheduledReload()
        }
        #expect(waits == [1, 2, 4, 8])
        #expect(fixture.report(bad)?.consecutiveFailures == 5)
        #expect(try await server.stats(bad)["requests"] == 5)
        try await server.set(bad, "mode=ok")
        time.advance(16)
        try await fixture.scheduledReload()
        let healed = try #require(fixture.report(bad))
        #expect(healed.consecutiveFailures == 0 && healed.lastError == nil)
        let wait = try #require(healed.nextFetch).timeIntervalSince(time.now)
        #expect(wait >= 0.5 && wait <= 1.5, "after a success the base interval applies again, got \(wait)")
    }

    @Test func theScheduleRefreshesOnItsOwnAndPublishes() async throws {
        let name = RiverServer.name("live")
        let fixture = try await Fixture([name], refreshEvery: .milliseconds(200))
        var publications = fixture.store.publications().makeAsyncIterator()
        let service = RefreshService(river: fixture.river, backend: fixture.store)
        service.start()
        try await fixture.server.add(name, guid: "scheduled")
        let published = await publications.next()
        await service.stop()
        #expect(published?.items.first?.id == "\(fixture.key(name)):scheduled")
    }

    @Test func theSourcesListAndItsOPMLExport() async throws {
        let names = [RiverServer.name("one"), RiverServer.name("two")]
        let fixture = try await Fixture(names)
        let list = try await fixture.json("GET", "/api/sources")["sources"] as? [[String: Any]] ?? []
        #expect(list.map { $0["key"] as? String } == names.map { fixture.key($0) })
        #expect(list.map { $0["title"] as? String } == names.map { "Feed \($0)" })
        #expect(list.allSatisfy { $0["ok"] as? Bool == true })
        let opml = try await fixture.send("GET", "/api/sources.opml")
        #expect(opml.headers["Content-Type"] == "text/x-opml; charset=utf-8")
        let back = try SubscriptionList.parse(Data(opml.body))
        #expect(back == names.map { Subscription(url: fixture.server.url($0), title: "Feed \($0)") })
    }
}
