import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

@Suite("The feed on a real port")
struct LiveFeedTests {
    static func start(_ app: FeedApp) throws -> Server {
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        return try Server(router: app.router(), options: options, logger: Logger(quiet: true))
    }

    @Test func etagRevalidationOverTheWire() async throws {
        let (app, _) = try Fixtures.app()
        let server = try Self.start(app)
        let first = try await RawConnection.exchange(
            port: server.port, ["GET /api/items HTTP/1.1\r\nHost: x\r\n\r\n"])[0]
        let etag = try #require(first.header("ETag"))
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "GET /api/items HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n",
                "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "GET /api/items HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n\r\n",
            ])
        #expect(responses.map(\.status) == [304, 200, 200])
        #expect(responses[0].body.isEmpty)
        #expect(responses[2].header("ETag") != etag)
        await server.shutdown()
    }

    /// The server stores the page, item bodies and their 304s: repeats are answered byte for
    /// byte as the app answered the first (but the id and date), and a reload's new version is
    /// what the very next request gets.
    @Test func storedAnswersMatchTheAppsAndNeverOutliveTheirVersion() async throws {
        let (app, _) = try Fixtures.app()
        let server = try Self.start(app)
        let gets = [
            "GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate, br\r\nAccept-Language: tr\r\n\r\n",
            "GET /api/items HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n",
            "GET /api/items?limit=2 HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n\r\n",
        ]
        let refresh = "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
        let responses = try await RawConnection.exchange(
            port: server.port, gets + gets + [refresh] + gets + gets)
        func stable(_ response: RawResponse) -> [String] {
            response.headers.filter { !["X-Request-Id", "Date"].contains($0.0) }.map { "\($0.0): \($0.1)" }
                + [String(decoding: response.body, as: UTF8.self)]
        }
        for index in 0..<3 {
            // The second of each pair came from the store: the same answer.
            #expect(stable(responses[index]) == stable(responses[index + 3]))
            #expect(stable(responses[index + 7]) == stable(responses[index + 10]))
            // After the reload: the new version, not the stored one.
            #expect(responses[index + 7].header("ETag") != responses[index].header("ETag"))
        }
        #expect(responses[0].header("Content-Encoding") == "br")
        #expect(responses[0].text.isEmpty == false)
        #expect(responses[1].header("Vary") == "Accept, Accept-Encoding")
        #expect(responses[2].text.contains("data-item-id="))
        #expect(responses[9].header("X-Feed-Version") == "2")
        #expect(server.storedResponseCount > 0)
        await server.shutdown()
    }

    /// A static file is stored by the server only for the rest of the second it was checked in:
    /// requested over and over while it changes on disk, the new bytes arrive within ~1 s.
    @Test func aChangedStaticFileIsSeenWithinASecondThoughStored() async throws {
        let (app, root) = try Fixtures.app()
        let server = try Self.start(app)
        let port = server.port
        let file = root.appendingPathComponent("Public/app.css")
        let get = "GET /static/app.css HTTP/1.1\r\nHost: x\r\n\r\n"
        let before = try await RawConnection.exchange(port: port, [get, get, get])
        #expect(Set(before.map(\.text)).count == 1)
        #expect(server.storedResponseCount > 0)
        try "body { color: red; }".write(to: file, atomically: true, encoding: .utf8)
        let changed = ContinuousClock.now
        var seen: Duration?
        while seen == nil, ContinuousClock.now - changed < .seconds(8) {
            let response = try await RawConnection.exchange(port: port, [get])[0]
            if response.text == "body { color: red; }" { seen = ContinuousClock.now - changed }
        }
        let delay = try #require(seen, "the new bytes never arrived")
        // A second of trust in the last check, plus generous slack for a busy machine: what this
        // guards against is a stored response that never expires (the loop gives up at 8 s).
        #expect(delay < .seconds(3))
        await server.shutdown()
    }

    @Test func fragmentAndNoJsRefreshOverTheWire() async throws {
        let (app, _) = try Fixtures.app()
        let server = try Self.start(app)
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "POST /api/refresh?since=1 HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nContent-Length: 0\r\n\r\n",
                "POST /refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: 0\r\n\r\n",
                "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
            ])
        #expect(responses[0].status == 200)
        #expect(responses[0].text.contains("data-item-id="))
        #expect(responses[0].header("X-Feed-Version") == "2")
        #expect(responses[1].status == 303)
        #expect(responses[1].header("Location") == "/")
        #expect(responses[2].text.contains("data-ptr-version=\"3\""))
        await server.shutdown()
    }

    @Test(arguments: [
        "/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/..%2Fsecret.txt",
        "/static/%2E%2E%2Fsecret.txt",
        "/static/img/../../secret.txt", "/static/escape.txt", "/static/.env", "/static//etc/passwd",
        "/static/%252e%252e/secret.txt", "/../secret.txt", "/%2e%2e/secret.txt", "/static/..\\secret.txt",
    ])
    func traversalNeverLeavesPublic(target: String) async throws {
        let (app, _) = try Fixtures.app()
        let server = try Self.start(app)
        let response = try await RawConnection.exchange(
            port: server.port, ["GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n"])[0]
        #expect([400, 404].contains(response.status), "\(target) → \(response.status)")
        #expect(!response.text.contains("TOP SECRET"))
        #expect(!response.text.contains("root:"))
        await server.shutdown()
    }

    @Test func errorEnvelopeOverTheWire() async throws {
        let (app, _) = try Fixtures.app()
        let server = try Self.start(app)
        let responses = try await RawConnection.exchange(
            port: server.port,
            [
                "GET /api/items?limit=0 HTTP/1.1\r\nHost: x\r\n\r\n",
                "DELETE /api/items HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8\r\n\r\nnot json",
            ])
        #expect(responses.map(\.status) == [400, 405, 400])
        for response in responses {
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            let error = try #require(json?["error"] as? [String: String])
            #expect(error["code"] != nil && error["message"] != nil)
        }
        #expect(responses[1].header("Allow") == "GET, HEAD")
        await server.shutdown()
    }
}
