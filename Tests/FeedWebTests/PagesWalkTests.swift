import Compression
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// Paging a large store over a real port while reloads add items on top.
@Suite("Walking every page of a 5,000-item store")
struct PagesWalkTests {
    static let count = 5_000

    /// A data-file store of `count` items; `grow` writes `more` newer items into the file.
    final class Store: @unchecked Sendable {
        let root: URL
        let file: URL
        let app: FeedApp
        private(set) var items: [FeedItem]

        init() throws {
            root = try FeedSamples.temporaryDirectory()
            file = root.appendingPathComponent("feed.json")
            items = (1...PagesWalkTests.count).map { FeedSamples.item($0) }
            try FeedSamples.writeData(items, to: file)
            let source = FileSource(path: file.path)
            let (app, publicRoot) = try Fixtures.app(
                source: source, initial: try source.load(), maxItems: 20_000)
            try? FileManager.default.removeItem(at: publicRoot)
            self.app = app
        }

        func grow(by more: Int) throws {
            let next = items.count + 1
            items += (next..<(next + more)).map { FeedSamples.item($0) }
            try FeedSamples.writeData(items, to: file)
        }
    }

    static func send(_ port: Int, _ request: String) async throws -> RawResponse {
        try await RawConnection.exchange(port: port, [request])[0]
    }

    static func reload(_ port: Int) async throws -> RawResponse {
        try await send(port, "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func theOlderLinksVisitEveryItemOnceWhileNewOnesArrive() async throws {
        let store = try Store()
        defer { try? FileManager.default.removeItem(at: store.root) }
        let server = try LiveFeedTests.start(store.app)
        var target = "/"
        var seen: [Int] = []
        var pages = 0
        var versions: Set<String> = []
        while true {
            // Brotli on the wire, as a browser would ask; the walk reads the decoded page.
            let response = try await Self.send(
                server.port, "GET \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n"
            )
            #expect(response.status == 200)
            #expect(response.header("Content-Encoding") == "br")
            let html = String(decoding: try #require(ContentCoding.br.decode(response.body)), as: UTF8.self)
            let ids = PageLinks.itemIDs(html)
            #expect(ids.count == 30 || PageLinks.olderHref(html) == nil)
            if pages == 0 {
                #expect(ids.first == Self.count)
            }
            seen += ids
            versions.insert(String(html.split(separator: "data-ptr-version=\"")[1].prefix { $0 != "\"" }))
            pages += 1
            if pages % 10 == 0 {
                try store.grow(by: 7)
                #expect(try await Self.reload(server.port).header("X-Feed-Added") == "7")
            }
            guard let href = PageLinks.olderHref(html) else { break }
            target = href
        }
        #expect(pages == (Self.count + 29) / 30)
        #expect(seen.count == Set(seen).count, "no item twice")
        #expect(seen == Array((1...Self.count).reversed()), "every original item, in feed order")
        #expect(versions.count > 10, "reloads happened during the walk")
        // The first page now starts with the newest of the added items.
        let top = try await Self.send(server.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(PageLinks.itemIDs(top.text).first == store.items.count)
        await server.shutdown()
    }

    @Test func theFragmentCursorsVisitEveryItemOnceWhileNewOnesArrive() async throws {
        let store = try Store()
        defer { try? FileManager.default.removeItem(at: store.root) }
        let server = try LiveFeedTests.start(store.app)
        var query = "limit=100"
        var seen: [Int] = []
        var requests = 0
        while true {
            let response = try await Self.send(
                server.port, "GET /api/items?\(query) HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n")
            #expect(response.status == 200)
            seen += PageLinks.itemIDs(response.text)
            requests += 1
            if requests % 5 == 0 {
                try store.grow(by: 3)
                _ = try await Self.reload(server.port)
            }
            guard let next = response.header("X-Feed-Next-Cursor") else { break }
            query = "limit=100&cursor=\(next)"
        }
        #expect(requests == Self.count / 100)
        #expect(seen == Array((1...Self.count).reversed()))
        await server.shutdown()
    }
}
