import Compression
import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// Every compressible route over a real port, in every encoding, against its identity bytes.
@Suite("Compression over the wire")
struct CompressionLiveTests {
    /// A file-backed store with a fixed clock: reloads change nothing, so every answer of a
    /// route is the same bytes and encodings can be compared with each other.
    final class Fixture: Sendable {
        let server: Server
        let root: URL
        let app: FeedApp

        init(items: Int = 200) throws {
            let (root, publicDir) = try Fixtures.publicFolder()
            self.root = root
            let script = (0..<300).map { "export const value\($0) = \"pull-to-refresh \($0)\";\n" }.joined()
            try script.write(
                to: publicDir.appendingPathComponent("big.js"), atomically: true, encoding: .utf8)
            let file = root.appendingPathComponent("feed.json")
            try FeedSamples.writeData((1...items).map { FeedSamples.item($0) }, to: file)
            let source = FileSource(path: file.path)
            let store = FeedStore(
                initial: try source.load(), source: source, delay: .zero, maxItems: 10_000,
                now: { Date(timeIntervalSince1970: 1_780_000_000) })
            app = FeedApp(
                store: store, renderer: try Fixtures.renderer(),
                files: try StaticFiles(directory: publicDir.path),
                logger: Logger(quiet: true))
            server = try LiveFeedTests.start(app)
        }

        func send(_ method: String, _ target: String, _ headers: [String: String] = [:]) async throws
            -> RawResponse
        {
            try await sendAll([(method, target, headers)])[0]
        }

        /// The requests on one keep-alive connection; each response must be framed exactly.
        func sendAll(_ requests: [(String, String, [String: String])]) async throws -> [RawResponse] {
            let port = server.port
            return try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                var responses: [RawResponse] = []
                for (method, target, headers) in requests {
                    var text = "\(method) \(target) HTTP/1.1\r\nHost: x\r\n"
                    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
                        text += "\(name): \(value)\r\n"
                    }
                    if method == "POST" { text += "Content-Length: 0\r\n" }
                    try connection.send(text + "\r\n")
                    responses.append(try connection.readResponse(head: method == "HEAD"))
                }
                guard connection.leftover.isEmpty else { throw RawError.malformed }
                return responses
            }
        }

        func stop() async {
            await server.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
    }

    /// Method, target and request headers of every route with a compressible body.
    static func routes(olderCursor: String) -> [(String, String, [String: String])] {
        [
            ("GET", "/", [:]),
            ("GET", "/?lang=ko&layout=grid", [:]),
            ("GET", "/?before=\(olderCursor)", [:]),
            ("GET", "/api/items", [:]),
            ("GET", "/api/items?limit=100&since=0", [:]),
            ("GET", "/api/items?limit=30&cursor=\(olderCursor)", ["Accept": "text/html"]),
            ("GET", "/api/openapi.json", [:]),
            ("GET", "/static/big.js", [:]),
            ("POST", "/api/refresh?since=0", [:]),
            ("POST", "/api/refresh?since=0", ["Accept": "text/html"]),
        ]
    }

    static func olderCursor(_ fixture: Fixture) async throws -> String {
        let page = try await fixture.send("GET", "/")
        let href = try #require(PageLinks.olderHref(page.text))
        return String(try #require(href.split(separator: "=").last))
    }

    @Test func everyRouteAndEncodingDecodesToTheIdentityBytes() async throws {
        let fixture = try Fixture()
        let cursor = try await Self.olderCursor(fixture)
        for (method, target, headers) in Self.routes(olderCursor: cursor) {
            let name = "\(method) \(target)"
            var plain = headers
            plain["Accept-Encoding"] = "identity"
            let identity = try await fixture.send(method, target, plain)
            #expect(identity.status == 200, "\(name)")
            #expect(identity.header("Content-Encoding") == nil, "\(name)")
            #expect(identity.header("Vary")?.contains("Accept-Encoding") == true, "\(name)")
            #expect(identity.body.count >= Representation.minimumCompressedSize, "\(name)")
            var etags: Set<String> = []
            if let tag = identity.header("ETag") { etags.insert(tag) }
            for coding in [ContentCoding.gzip, .br] {
                var asking = headers
                asking["Accept-Encoding"] = coding.rawValue
                let response = try await fixture.send(method, target, asking)
                #expect(response.status == 200, "\(name) \(coding)")
                #expect(response.header("Content-Encoding") == coding.rawValue, "\(name) \(coding)")
                #expect(response.header("Vary")?.contains("Accept-Encoding") == true, "\(name) \(coding)")
                #expect(response.header("Content-Length") == String(response.body.count), "\(name) \(coding)")
                #expect(response.body.count < identity.body.count, "\(name) \(coding)")
                #expect(coding.decode(response.body) == identity.body, "\(name) \(coding)")
                if coding == .gzip {
                    #expect(try GzipTool.decompress(response.body) == identity.body, "\(name)")
                }
                #expect(
                    response.header("Content-Type") == identity.header("Content-Type"), "\(name) \(coding)")
                if let tag = response.header("ETag") { etags.insert(tag) }
            }
            // Strong ETags differ per encoding (where the route has a validator at all).
            #expect(etags.isEmpty || etags.count == 3, "\(name): \(etags)")
            #expect(method == "POST" || etags.count == 3, "\(name)")
        }
        await fixture.stop()
    }

    @Test func browsersGetBrotliAndSmallBodiesStayAsTheyAre() async throws {
        let fixture = try Fixture()
        let browser = try await fixture.send("GET", "/", ["Accept-Encoding": "gzip, deflate, br, zstd"])
        #expect(browser.header("Content-Encoding") == "br")
        let refused = try await fixture.send("GET", "/", ["Accept-Encoding": "br;q=0, gzip;q=0.5"])
        #expect(refused.header("Content-Encoding") == "gzip")
        let none = try await fixture.send("GET", "/")
        #expect(none.header("Content-Encoding") == nil)
        let small = try await fixture.send("GET", "/api/items?limit=1", ["Accept-Encoding": "br, gzip"])
        #expect(small.body.count < Representation.minimumCompressedSize)
        #expect(small.header("Content-Encoding") == nil)
        #expect(small.header("Vary")?.contains("Accept-Encoding") == true)
        let garbage = try await fixture.send("GET", "/", ["Accept-Encoding": ";;q=,,🙂 br;q=x"])
        #expect(garbage.status == 200)
        #expect(garbage.header("Content-Encoding") == nil)
        await fixture.stop()
    }

    @Test func anyEtagOfTheVersionGives304WithTheChosenVariantsTag() async throws {
        let fixture = try Fixture()
        let cursor = try await Self.olderCursor(fixture)
        for (method, target, headers) in Self.routes(olderCursor: cursor) where method == "GET" {
            var tags: [ContentCoding: String] = [:]
            for coding in ContentCoding.allCases {
                var asking = headers
                asking["Accept-Encoding"] = coding.rawValue
                let tag = try #require(try await fixture.send(method, target, asking).header("ETag"))
                tags[coding] = tag
            }
            for wanted in ContentCoding.allCases {
                for (_, tag) in tags {
                    var asking = headers
                    asking["Accept-Encoding"] = wanted.rawValue
                    asking["If-None-Match"] = tag
                    let response = try await fixture.send(method, target, asking)
                    #expect(response.status == 304, "\(target) \(wanted) \(tag)")
                    #expect(response.body.isEmpty)
                    #expect(response.header("ETag") == tags[wanted], "\(target) \(wanted)")
                    #expect(response.header("Vary")?.contains("Accept-Encoding") == true)
                }
                var asking = headers
                asking["Accept-Encoding"] = wanted.rawValue
                asking["If-None-Match"] = "\"something-else\""
                #expect(try await fixture.send(method, target, asking).status == 200)
            }
        }
        await fixture.stop()
    }

    @Test func aNewVersionInvalidatesEveryEncodingsEtag() async throws {
        let (app, root) = try Fixtures.app(initial: (1...80).map { FeedSamples.item($0) })
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try LiveFeedTests.start(app)
        for target in ["/", "/api/items"] {
            var tags: [String] = []
            for coding in ["identity", "gzip", "br"] {
                let request = "GET \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: \(coding)\r\n\r\n"
                tags.append(
                    try #require(
                        try await RawConnection.exchange(port: server.port, [request])[0].header("ETag")))
            }
            _ = try await RawConnection.exchange(
                port: server.port, ["POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])
            for tag in tags {
                let request =
                    "GET \(target) HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br\r\nIf-None-Match: \(tag)\r\n\r\n"
                let response = try await RawConnection.exchange(port: server.port, [request])[0]
                #expect(response.status == 200, "\(target) \(tag)")
                #expect(!tags.contains(response.header("ETag") ?? ""))
            }
        }
        await server.shutdown()
    }

    @Test func headCarriesTheSameHeadersAsGet() async throws {
        let fixture = try Fixture()
        for target in ["/", "/api/items", "/api/openapi.json", "/static/big.js"] {
            for coding in ["identity", "gzip", "br"] {
                let headers = ["Accept-Encoding": coding]
                let responses = try await fixture.sendAll([
                    ("GET", target, headers), ("HEAD", target, headers), ("GET", target, headers),
                ])
                let get = responses[0]
                let head = responses[1]
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                // Date and the per-request id differ by design; every other header must match.
                func comparable(_ response: RawResponse) -> [String] {
                    response.headers.filter { !["date", "x-request-id"].contains($0.0.lowercased()) }.map {
                        "\($0.0.lowercased()): \($0.1)"
                    }
                }
                #expect(comparable(head) == comparable(get), "\(target) \(coding)")
                #expect(head.header("Content-Length") == String(get.body.count), "\(target) \(coding)")
                #expect(responses[2].body == get.body)
            }
        }
        await fixture.stop()
    }
}
