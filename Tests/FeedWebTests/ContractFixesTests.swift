import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// The small promises of the README's routes, over the wire: `/api` is the API, `lang` and
/// `layout` ignore case, an older page past the end says so, a `304` has its `200`'s length,
/// a `since` above the current version reads as `0` everywhere, and the answers libmicrohttpd
/// makes itself are exactly the documented ones.
@Suite("Contract details over the wire")
struct ContractFixesTests {
    static func get(_ port: Int, _ target: String, _ extra: String = "") async throws -> RawResponse {
        try await RawConnection.exchange(port: port, ["GET \(target) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n"])[0]
    }

    static func errorCode(_ response: RawResponse) throws -> String? {
        let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (json?["error"] as? [String: Any])?["code"] as? String
    }

    @Test func apiWithoutTheSlashIsTheJSONEnvelopeLikeApiSlash() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        for target in ["/api", "/api/", "/api?x=1"] {
            let response = try await Self.get(server.port, target)
            #expect(response.status == 404, "\(target)")
            #expect(response.header("Content-Type") == "application/json; charset=utf-8", "\(target)")
            #expect(try Self.errorCode(response) == "not_found", "\(target)")
        }
        // Paths that merely start with the letters stay pages.
        let page = try await Self.get(server.port, "/apiary")
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        await server.shutdown()
    }

    @Test func langAndLayoutValuesIgnoreCaseAlike() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        let upper = try await Self.get(server.port, "/?lang=KO&layout=GRID")
        #expect(upper.status == 200)
        #expect(upper.text.contains("<html lang=\"ko\""))
        #expect(upper.text.contains("feed-list--grid"))
        let mixed = try await Self.get(server.port, "/?layout=Grid")
        #expect(mixed.status == 200)
        #expect(mixed.text.contains("feed-list--grid"))
        #expect(try await Self.get(server.port, "/?layout=grids").status == 400)
        // The no-JS refresh keeps the layout whatever its case.
        let back = try await RawConnection.exchange(
            port: server.port,
            ["POST /refresh?layout=GRID&lang=TR HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])[0]
        #expect(back.status == 303)
        #expect(back.header("Location") == "/?lang=tr&layout=grid")
        await server.shutdown()
    }

    @Test func anOlderPagePastTheEndSaysSoNotPullDown() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        // A position older than every item: year 1970.
        let past = ItemsQuery.Cursor(millis: 1, id: "0").text
        let english = try await Self.get(server.port, "/?before=\(past)")
        #expect(english.status == 200)
        #expect(english.text.contains("No older items: that&#39;s the end of the feed."))
        #expect(!english.text.contains("Pull down"))
        #expect(english.text.contains("<a href=\"/\">Back to the newest</a>"))
        let korean = try await Self.get(server.port, "/?before=\(past)&lang=ko&layout=grid")
        #expect(korean.text.contains("피드의 끝입니다"))
        #expect(korean.text.contains("<a href=\"/?lang=ko&amp;layout=grid\">"))
        await server.shutdown()
    }

    /// RFC 9110 §8.6: a 304's `Content-Length`, when sent, is the one its 200 has; libmicrohttpd
    /// would send `0` for an empty response. Each encoding's 304 has that encoding's length.
    @Test(arguments: ["/", "/api/items", "/static/app.css", "/api/openapi.json"])
    func notModifiedCarriesTheLengthOfItsOK(target: String) async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        for coding in ["identity", "gzip", "br"] {
            let ok = try await Self.get(server.port, target, "Accept-Encoding: \(coding)\r\n")
            let etag = try #require(ok.header("ETag"))
            #expect(ok.header("Content-Length") == String(ok.body.count))
            // Twice: the second answer may be the server's stored one.
            let request =
                "GET \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(coding)\r\nIf-None-Match: \(etag)\r\n\r\n"
            let answers = try await RawConnection.exchange(port: server.port, [request, request, request])
            for answer in answers {
                #expect(answer.status == 304, "\(target) \(coding)")
                #expect(answer.header("Content-Length") == String(ok.body.count), "\(target) \(coding)")
            }
            #expect(
                answers.allSatisfy { $0.headers.filter { $0.0.lowercased() == "content-length" }.count == 1 })
        }
        await server.shutdown()
    }

    @Test func sinceAboveTheCurrentVersionReadsAsZeroOnEveryRoute() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        let everything = try await Self.get(server.port, "/api/items?since=0")
        let above = try await Self.get(server.port, "/api/items?since=999")
        let all = try JSONSerialization.jsonObject(with: Data(everything.body)) as? [String: Any]
        let fromAbove = try JSONSerialization.jsonObject(with: Data(above.body)) as? [String: Any]
        let count = (all?["items"] as? [Any])?.count ?? 0
        #expect(count == 5)
        #expect((fromAbove?["items"] as? [Any])?.count == count)
        let fragment = try await Self.get(server.port, "/api/items?since=999", "Accept: text/html\r\n")
        #expect(PageLinks.itemIDs(fragment.text).count == count)
        // The event stream: one event at once, counting everything (since 0).
        let (reader, status, _) = try await EventStreamTests.open(
            server.port, extra: "Last-Event-ID: 999\r\n")
        #expect(status == 200)
        let text = try await EventStreamTests.read(reader, until: "}\n\n")
        // Event ids are `<epoch tag>-<version>`: version 1 of this process's epoch.
        #expect(text.range(of: #"\nid: [0-9a-z]+-1\nevent: version\n"#, options: .regularExpression) != nil)
        #expect(text.contains("\"added\":\(count)}"))
        let (viaQuery, _) = try await RawConnection.offPool {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /api/events?since=999 HTTP/1.1\r\nHost: x\r\n\r\n")
            let reader = StreamingReader(connection)
            return (reader, try reader.readHead().status)
        }
        #expect(try await EventStreamTests.read(viaQuery, until: "}\n\n") == text)
        await server.shutdown()
    }

    /// A page says where it is as `<epoch tag>-<version>` (its `data-ptr-epoch`, and the
    /// answers' `epoch` / `X-Feed-Epoch`): within the current epoch that is its version; from
    /// another epoch (the shared store was emptied and seeded again) it reads as `0` on every
    /// route, so a page of the old epoch gets everything rather than "nothing new".
    @Test func sinceFromAnotherEpochReadsAsZeroOnEveryRoute() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        let page = try await Self.get(server.port, "/")
        let whole =
            try JSONSerialization.jsonObject(
                with: Data(try await Self.get(server.port, "/api/items").body)) as? [String: Any]
        let epoch = try #require(whole?["epoch"] as? String)
        let version = try #require(whole?["version"] as? Int)
        let count = try #require((whole?["items"] as? [Any])?.count)
        #expect(count == 5)
        #expect(page.text.contains("data-ptr-version=\"\(version)\" data-ptr-epoch=\"\(epoch)\""))
        let other = FeedPosition.tag(Int(epoch, radix: 36)! - 1)

        func items(_ since: String, html: Bool = false) async throws -> RawResponse {
            try await Self.get(server.port, "/api/items?since=\(since)", html ? "Accept: text/html\r\n" : "")
        }
        func itemCount(_ response: RawResponse) throws -> Int? {
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            return (json?["items"] as? [Any])?.count
        }
        // The same epoch: a position is its version.
        #expect(try itemCount(try await items("\(epoch)-\(version)")) == 0)
        #expect(try itemCount(try await items("\(epoch)-0")) == count)
        // Another epoch: everything, in JSON and in the fragment, which names the epoch it shows.
        #expect(try itemCount(try await items("\(other)-\(version)")) == count)
        let fragment = try await items("\(other)-\(version)", html: true)
        #expect(PageLinks.itemIDs(fragment.text).count == count)
        #expect(fragment.header("X-Feed-Epoch") == epoch)
        #expect(fragment.header("X-Feed-Version") == String(version))
        // The refresh (each one adds a few items): `added` counts from the position, so only the
        // new items from this epoch's, and every item from another epoch's.
        for (since, everything) in [("\(epoch)-\(version)", false), ("\(other)-\(version)", true)] {
            let refresh = try await RawConnection.exchange(
                port: server.port,
                ["POST /api/refresh?since=\(since) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])[0]
            #expect(refresh.status == 200, "\(since)")
            #expect(refresh.header("X-Feed-Epoch") == epoch, "\(since)")
            let json = try JSONSerialization.jsonObject(with: Data(refresh.body)) as? [String: Any]
            let total = try #require((json?["items"] as? [Any])?.count)
            let added = try #require((json?["added"] as? [Any])?.count)
            #expect(refresh.header("X-Feed-Added") == String(added), "\(since)")
            #expect(
                everything ? added == total : (0..<total).contains(added), "\(since): \(added) of \(total)")
        }
        // The event stream opened from a page of another epoch: the full catch-up at once.
        let now = try #require(try itemCount(try await items("0")))
        let (stream, _) = try await RawConnection.offPool {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /api/events?since=\(other)-\(version) HTTP/1.1\r\nHost: x\r\n\r\n")
            let reader = StreamingReader(connection)
            return (reader, try reader.readHead().status)
        }
        let event = try await EventStreamTests.read(stream, until: "}\n\n")
        #expect(event.contains("\"epoch\":\"\(epoch)\""))
        #expect(event.contains("\"added\":\(now)}"))
        // Not a position: a clear 400 naming the parameter.
        for bad in ["\(epoch)-", "-3", "\(epoch)-x", "a-b-3", "\(epoch)-99999999999999999999"] {
            let response = try await items(bad)
            #expect(response.status == 400, "\(bad)")
            #expect(try Self.errorCode(response) == "invalid_since", "\(bad)")
        }
        await server.shutdown()
    }

    /// What libmicrohttpd 0.9.75 answers itself, before any handler runs, so its fixed HTML body
    /// (and `Connection: close`) even under `/api/`: the README's "Errors" lists exactly these.
    /// The server goes on serving after each.
    @Test(arguments: [
        (
            "GET /api/items?\(String(repeating: "a", count: 20_000)) HTTP/1.1\r\nHost: x\r\n\r\n", 414
        ),
        (
            "GET /api/items HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n",
            431
        ),
        ("GET /api/items HTTP/2.0\r\nHost: x\r\n\r\n", 505),
        ("GET /api/items HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400),
        ("POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400),
        ("POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413),
        ("POST /api/refresh HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
    ])
    func libmicrohttpdsOwnAnswersAreTheDocumentedOnes(request: String, status: Int) async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        let answer = try await RawConnection.offPool {
            let connection = try RawConnection(port: server.port)
            try connection.send(request)
            let response = try connection.readResponse()
            return (response, connection.readsEOF())
        }
        #expect(answer.0.status == status)
        #expect(answer.0.header("Content-Type") == nil)
        // For the two Content-Length refusals 0.9.75 writes its head twice, so the body read
        // by the first head's length starts with the second head; the HTML follows either way.
        #expect(answer.0.text.contains("<html>"))
        #expect(answer.0.header("Connection") == "close")
        #expect(answer.1)
        #expect(try await Self.get(server.port, "/api/items?limit=1").status == 200)
        await server.shutdown()
    }
}
