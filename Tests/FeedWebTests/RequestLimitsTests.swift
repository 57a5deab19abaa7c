import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Feed

@Suite("Query limits and refresh counts over the wire")
struct RequestLimitsTests {
    /// libmicrohttpd used to close these connections without a word: its per-connection pool
    /// ran out of room for the parameter records. Now the query is ours to parse.
    @Test(arguments: [(2_000, false), (1_500, true)])
    func thousandsOfQueryParametersGetA414AndTheConnectionStaysUsable(count: Int, withValues: Bool)
        async throws
    {
        func parameter(_ index: Int) -> String { withValues ? "a\(index)=\(index)" : "a\(index)" }
        let (app, root) = try Fixtures.app()
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try LiveFeedTests.start(app)
        let query = (0..<count).map(parameter).joined(separator: "&")
        #expect(query.utf8.count > 10_000)
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "GET /api/items?\(query) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /?\(query) HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /api/items?limit=2&\((0..<200).map(parameter).joined(separator: "&")) HTTP/1.1\r\nHost: x\r\n\r\n",
            ])
        #expect(responses.map(\.status) == [414, 414, 200])
        let json = try JSONSerialization.jsonObject(with: Data(responses[0].body)) as? [String: Any]
        let error = try #require(json?["error"] as? [String: String])
        #expect(error["code"] == "too_many_parameters")
        #expect(error["message"]?.contains("256") == true)
        #expect(responses[1].header("Content-Type") == "text/html; charset=utf-8")
        let page = try JSONSerialization.jsonObject(with: Data(responses[2].body)) as? [String: Any]
        #expect((page?["items"] as? [Any])?.count == 2)
        await server.shutdown()
    }

    @Test func refreshWithoutSinceCountsWhatThisReloadAdded() async throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.json")
        var items = (1...10).map { FeedSamples.item($0) }
        try FeedSamples.writeData(items, to: file)
        let source = FileSource(path: file.path)
        let (app, root) = try Fixtures.app(source: source, initial: try source.load())
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try LiveFeedTests.start(app)
        let html = "POST /api/refresh HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nContent-Length: 0\r\n\r\n"
        let json = "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"

        items += (11...13).map { FeedSamples.item($0) }
        try FeedSamples.writeData(items, to: file)
        let fragment = try await RawConnection.exchange(port: server.port, [html])[0]
        #expect(fragment.header("X-Feed-Version") == "2")
        #expect(fragment.header("X-Feed-Added") == "3")
        #expect(PageLinks.itemIDs(fragment.text) == [13, 12, 11])

        items += (14...15).map { FeedSamples.item($0) }
        try FeedSamples.writeData(items, to: file)
        let body = try await RawConnection.exchange(port: server.port, [json])[0]
        #expect(body.header("X-Feed-Added") == "2")
        let decoded = try JSONSerialization.jsonObject(with: Data(body.body)) as? [String: Any]
        #expect((decoded?["added"] as? [[String: Any]])?.map { $0["id"] as? String } == ["15", "14"])

        // A reload that changes nothing adds nothing, in both shapes.
        let unchanged = try await RawConnection.exchange(port: server.port, [html, json])
        #expect(unchanged.map { $0.header("X-Feed-Added") } == ["0", "0"])
        #expect(PageLinks.itemIDs(unchanged[0].text).isEmpty)
        await server.shutdown()
    }
}
