import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

@Suite("Pages of the feed and their cursors, without sockets")
struct PagesTests {
    /// Items with colliding timestamps too, so the id tie-break is exercised.
    static func snapshot(_ count: Int) -> FeedSnapshot {
        let items = (1...count).map { FeedSamples.item($0, minute: $0 / 3) }
        return FeedStore(initial: items, source: GeneratorSource(seed: 1), delay: .zero, maxItems: count)
            .current
    }

    @Test func binarySearchAgreesWithALinearScan() {
        let snapshot = Self.snapshot(300)
        var cursors = snapshot.entries.map { ItemsQuery.Cursor(after: $0.item) }
        cursors += [
            ItemsQuery.Cursor(millis: 0, id: "1"), ItemsQuery.Cursor(millis: .max / 2, id: "1"),
            ItemsQuery.Cursor(millis: cursors[10].millis, id: "~"),
            ItemsQuery.Cursor(millis: cursors[10].millis + 1, id: "1"),
        ]
        for cursor in cursors {
            let linear = snapshot.entries.firstIndex { cursor.precedes($0.item) } ?? snapshot.entries.count
            #expect(snapshot.startIndex(after: cursor) == linear)
        }
    }

    @Test func pagesChainWithoutGapOrRepeat() {
        let snapshot = Self.snapshot(100)
        var seen: [String] = []
        var cursor: ItemsQuery.Cursor?
        repeat {
            let page = snapshot.page(after: cursor, limit: 30)
            seen += page.entries.map(\.item.id)
            cursor = page.next
        } while cursor != nil
        #expect(seen == snapshot.entries.map(\.item.id))
        #expect(snapshot.page(after: nil, limit: 100).next == nil)
        #expect(snapshot.page(after: nil, limit: 99).next != nil)
    }

    /// Opaque string ids of every shape, many at the same millisecond: the text cursors of the
    /// API walk them one by one in feed order, none repeated or skipped.
    @Test func stringIdsOfAnyShapePageThroughTextCursors() async throws {
        let ids = [
            "tag:example.org,2026:ferry", "https://example.org/a?b=1&c=2", "ü-ñ-日本", "a.b:c", "9", "10", "A",
            "a",
            String(repeating: "z", count: 256), "with space", "quote\"s", "<script>",
        ]
        let stamp = Date(timeIntervalSince1970: 1_767_225_600)
        let items = ids.enumerated().map { index, id in
            FeedItem(
                id: id, title: "t", body: "",
                createdAt: stamp.addingTimeInterval(index < 6 ? 0 : Double(index)))
        }
        let (app, root) = try Fixtures.app(initial: items)
        defer { try? FileManager.default.removeItem(at: root) }
        let router = app.router()
        var seen: [String] = []
        var cursor: String?
        repeat {
            let query = cursor.map {
                "&cursor=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            }
            let response = await router.respond(
                to: try Request(method: "GET", target: "/api/items?limit=1" + (query ?? "")))
            #expect(response.status == 200)
            let json = try Fixtures.json(response)
            seen += (json["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = json["nextCursor"] as? String
        } while cursor != nil && seen.count <= ids.count
        #expect(seen == app.store.current.items.map(\.id))
        #expect(Set(seen) == Set(ids))
    }

    @Test func pageSizeBoundsTheFirstPage() async throws {
        let items = (1...80).map { FeedSamples.item($0) }
        let (root, publicDir) = try Fixtures.publicFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        for (size, shown) in [(30, 30), (1, 1), (100, 80)] {
            let store = FeedStore(
                initial: items, source: GeneratorSource(seed: 1), delay: .zero, maxItems: 500)
            let app = FeedApp(
                store: store, renderer: try Fixtures.renderer(),
                files: try StaticFiles(directory: publicDir.path),
                logger: Logger(quiet: true), pageSize: size)
            let html = Fixtures.text(await app.router().respond(to: Request(method: "GET", path: "/")))
            #expect(html.components(separatedBy: "data-item-id=").count - 1 == shown)
            #expect(html.contains("data-ptr-older=") == (shown < 80))
        }
    }

    @Test func olderLinkKeepsLanguageAndLayoutAndLeadsToTheNextItems() async throws {
        let items = (1...70).map { FeedSamples.item($0) }
        let (app, root) = try Fixtures.app(initial: items)
        defer { try? FileManager.default.removeItem(at: root) }
        let router = app.router()
        var target = "/?lang=tr&layout=grid"
        var ids: [Int] = []
        var pages = 0
        while true {
            let response = await router.respond(to: try Request(method: "GET", target: target))
            #expect(response.status == 200)
            let html = Fixtures.text(response)
            #expect(html.contains("lang=\"tr\""))
            #expect(html.contains("feed-list--grid"))
            ids += PageLinks.itemIDs(html)
            pages += 1
            guard let href = PageLinks.olderHref(html) else { break }
            #expect(href.hasSuffix("&lang=tr&layout=grid"))
            #expect(html.contains(">Daha eski öğeler</a>"))
            target = href
        }
        #expect(pages == 3)
        #expect(ids == Array((1...70).reversed()))
    }

    @Test(arguments: ["/?before=abc", "/?before=", "/?before=1.0", "/?before=-5.3", "/?before=1.2.3"])
    func badBeforeIs400Html(target: String) async throws {
        let (app, root) = try Fixtures.app()
        defer { try? FileManager.default.removeItem(at: root) }
        let response = await app.router().respond(to: try Request(method: "GET", target: target))
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(Fixtures.text(response).contains("&#39;before&#39;"))
    }

    @Test func beforePastTheEndIsAnEmptyPageWithoutOlderLink() async throws {
        let (app, root) = try Fixtures.app()
        defer { try? FileManager.default.removeItem(at: root) }
        // 1 ms after 1970, id "1": a valid position past every item.
        let response = await app.router().respond(to: try Request(method: "GET", target: "/?before=c1.31"))
        #expect(response.status == 200)
        let html = Fixtures.text(response)
        #expect(!html.contains("data-item-id="))
        #expect(!html.contains("data-ptr-older"))
    }

    @Test func fragmentOfOlderItemsCarriesTheNextCursor() async throws {
        let items = (1...70).map { FeedSamples.item($0) }
        let (app, root) = try Fixtures.app(initial: items)
        defer { try? FileManager.default.removeItem(at: root) }
        let router = app.router()
        let first = await router.respond(
            to: try Request(
                method: "GET", target: "/api/items?limit=30&lang=ko", headers: ["Accept": "text/html"]))
        #expect(first.status == 200)
        #expect(first.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(PageLinks.itemIDs(Fixtures.text(first)) == Array((41...70).reversed()))
        #expect(!Fixtures.text(first).contains("<html"))
        let next = try #require(first.headers["X-Feed-Next-Cursor"])
        let last = await router.respond(
            to: try Request(
                method: "GET", target: "/api/items?limit=50&cursor=\(next)", headers: ["Accept": "text/html"])
        )
        #expect(PageLinks.itemIDs(Fixtures.text(last)) == Array((1...40).reversed()))
        #expect(last.headers["X-Feed-Next-Cursor"] == nil)
        #expect(first.headers["ETag"] != nil)
        // The JSON shape of the same URL has its own ETag (Vary: Accept).
        let json = await router.respond(to: try Request(method: "GET", target: "/api/items?limit=30"))
        #expect(json.headers["ETag"] != first.headers["ETag"])
        #expect(json.headers["Vary"]?.contains("Accept") == true)
        let badLang = await router.respond(to: try Request(method: "GET", target: "/api/items?lang=xx"))
        #expect(badLang.status == 400)
    }
}
