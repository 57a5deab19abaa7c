import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// `GET /api/events` over real sockets: headers, framing, ids, `Last-Event-ID`, heartbeats,
/// the stream limit and shutdown.
@Suite("The event stream on a real port")
struct EventStreamTests {
    static func request(_ target: String) -> String {
        "GET \(target) HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip, br\r\n"
    }

    static func app(heartbeat: Duration = .seconds(60)) throws -> FeedApp {
        let (_, publicDir) = try Fixtures.publicFolder()
        let generator = GeneratorSource(seed: 7)
        let store = FeedStore(
            initial: generator.initialItems(count: 5), source: generator, delay: .zero, maxItems: 500)
        return FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: publicDir.path), logger: Logger(quiet: true),
            heartbeat: heartbeat)
    }

    static func start(_ app: FeedApp, configure: (inout ServerOptions) -> Void = { _ in }) throws -> Server {
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        configure(&options)
        return try Server(router: app.router(), options: options, logger: Logger(quiet: true))
    }

    /// Opens a stream (at `target`, with extra header lines) and reads its head.
    static func open(_ port: Int, target: String = "/api/events", extra: String = "") async throws -> (
        StreamingReader, status: Int, headers: [(String, String)]
    ) {
        try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send(request(target) + extra + "\r\n")
            let reader = StreamingReader(connection)
            let head = try reader.readHead()
            return (reader, head.status, head.headers)
        }
    }

    @discardableResult
    static func read(_ reader: StreamingReader, until marker: String) async throws -> String {
        try await RawConnection.offPool { try reader.read(until: marker) }
    }

    static func refresh(_ port: Int) async throws -> RawResponse {
        try await RawConnection.exchange(
            port: port, ["POST /api/refresh HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"])[0]
    }

    static func header(_ headers: [(String, String)], _ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    /// Waits (bounded) until `condition` holds; the bound is a safety net, not an assertion.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
    }

    @Test func headersAndTheRetryHint() async throws {
        let app = try Self.app()
        let server = try Self.start(app)
        let (reader, status, headers) = try await Self.open(server.port)
        #expect(status == 200)
        #expect(Self.header(headers, "Content-Type") == "text/event-stream; charset=utf-8")
        #expect(Self.header(headers, "Cache-Control") == "no-store")
        #expect(Self.header(headers, "X-Accel-Buffering") == "no")
        #expect(Self.header(headers, "Transfer-Encoding") == "chunked")
        // Asked for gzip and br, and still never compressed: a proxy or browser would buffer it.
        #expect(Self.header(headers, "Content-Encoding") == nil)
        #expect(Self.header(headers, "Content-Length") == nil)
        let text = try await Self.read(reader, until: "\n\n")
        #expect(text == "retry: \(EventHub.retryMillis)\n\n")
        #expect(server.openStreams == 1)
        await server.shutdown()
    }

    @Test func eachNewVersionIsOneEventOnEveryStream() async throws {
        let app = try Self.app()
        let server = try Self.start(app)
        var readers: [StreamingReader] = []
        for _ in 0..<3 {
            let (reader, _, _) = try await Self.open(server.port)
            try await Self.read(reader, until: "retry:")
            readers.append(reader)
        }
        let refreshed = try await Self.refresh(server.port)
        let version = try #require(refreshed.header("X-Feed-Version"))
        let added = try #require(refreshed.header("X-Feed-Added"))
        let updatedAt = try #require(refreshed.header("X-Feed-Updated-At"))
        let tag = app.store.cacheTag
        let expected =
            "id: \(tag)-\(version)\nevent: version\n"
            + "data: {\"version\":\(version),\"updatedAt\":\"\(updatedAt)\",\"epoch\":\"\(tag)\",\"added\":\(added)}\n\n"
        for reader in readers {
            let text = try await Self.read(reader, until: "}\n\n")
            #expect(text == "retry: \(EventHub.retryMillis)\n\n" + expected)
        }
        await server.shutdown()
    }

    /// HTTP/1.1 streams (`Connection: close` too: libmicrohttpd chunks them all) get their events
    /// written as chunks straight to the socket while the connection is suspended; an HTTP/1.0
    /// client gets the body unframed from libmicrohttpd. Side by side, each gets every event.
    @Test func everyFramingGetsEveryEvent() async throws {
        let app = try Self.app()
        let server = try Self.start(app)
        let port = server.port
        let requests = [
            "GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /api/events HTTP/1.0\r\n\r\n",
            "GET /api/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ]
        var readers: [StreamingReader] = []
        for request in requests {
            let reader = try await RawConnection.offPool {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                let reader = StreamingReader(connection)
                _ = try reader.readHead()
                try reader.read(until: "retry:")
                return reader
            }
            readers.append(reader)
        }
        #expect(readers.map(\.chunked) == [true, false, true])
        var versions: [String] = []
        for _ in 0..<3 {
            let refreshed = try await Self.refresh(port)
            versions.append(app.store.cacheTag + "-" + (try #require(refreshed.header("X-Feed-Version"))))
        }
        for reader in readers {
            let text = try await Self.read(reader, until: "id: \(versions[2])\n")
            let ids = text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map {
                String($0.dropFirst(4))
            }
            #expect(ids == versions)
        }
        await server.shutdown()
        for reader in readers {
            // Chunked streams end with the last chunk, unframed ones with the connection.
            _ = try await RawConnection.offPool { try reader.readToEnd() }
            #expect(reader.ended)
        }
    }

    @Test func anOlderLastEventIDGetsOneEventAtOnce() async throws {
        let app = try Self.app()
        let server = try Self.start(app)
        _ = try await Self.refresh(server.port)
        let second = try await Self.refresh(server.port)
        let version = try #require(second.header("X-Feed-Version"))
        // Everything added after version 1, counted from the snapshot the server holds.
        let sinceOne = app.store.current.entries.filter { $0.addedIn > 1 }.count
        let (reader, _, _) = try await Self.open(server.port, extra: "Last-Event-ID: 1\r\n")
        let text = try await Self.read(reader, until: "}\n\n")
        #expect(
            text.hasPrefix(
                "retry: \(EventHub.retryMillis)\n\nid: \(app.store.cacheTag)-\(version)\nevent: version\n"))
        #expect(text.contains("\"added\":\(sinceOne)}"))
        // `?since=` means the same for a page opening a fresh EventSource.
        let (viaQuery, _, _) = try await Self.open(server.port, target: "/api/events?since=1")
        #expect(try await Self.read(viaQuery, until: "}\n\n") == text)
        await server.shutdown()
    }

    @Test func aCurrentLastEventIDGetsNoEventButHeartbeats() async throws {
        let app = try Self.app(heartbeat: .milliseconds(100))
        let server = try Self.start(app)
        let current = app.store.currentVersion
        let (reader, _, _) = try await Self.open(server.port, extra: "Last-Event-ID: \(current)\r\n")
        let text = try await Self.read(reader, until: ": ping\n\n: ping\n\n")
        // Only pings after the hint, no event; a busy machine may let more than two pile up.
        let afterHint = text.dropFirst("retry: \(EventHub.retryMillis)\n\n".count)
        #expect(text.hasPrefix("retry: \(EventHub.retryMillis)\n\n"))
        #expect(afterHint.count >= 2 * ": ping\n\n".count)
        #expect(afterHint.replacingOccurrences(of: ": ping\n\n", with: "").isEmpty)
        await server.shutdown()
    }

    @Test func badSinceIsA400() async throws {
        let app = try Self.app()
        let server = try Self.start(app)
        let response = try await RawConnection.exchange(
            port: server.port, ["GET /api/events?since=soon HTTP/1.1\r\nHost: x\r\n\r\n"])[0]
        #expect(response.status == 400)
        #expect(response.text.contains("invalid_since"))
        #expect(server.openStreams == 0)
        await server.shutdown()
    }

    @Test func pastMaxStreamsIs503AndADepartedClientFreesItsPlace() async throws {
        let app = try Self.app(heartbeat: .milliseconds(100))
        let server = try Self.start(app) {
            $0.maxStreams = 2
            $0.maxPendingRequests = 1
        }
        let (first, _, _) = try await Self.open(server.port)
        let (second, _, _) = try await Self.open(server.port)
        let (_, status, headers) = try await Self.open(server.port)
        #expect(status == 503)
        #expect(Self.header(headers, "Retry-After") == "1")
        // Streams are not pending requests: with room for one pending refresh, a refresh works.
        #expect(try await Self.refresh(server.port).status == 200)
        _ = try await Self.read(second, until: "event: version")
        // The first client leaves (shuts its socket down): the departure watch frees the stream.
        shutdown(first.connection.descriptor, Int32(SHUT_RDWR))
        try await Self.eventually { server.openStreams < 2 }
        #expect(server.openStreams == 1)
        #expect(app.events.openStreams == 1)
        let (_, again, _) = try await Self.open(server.port)
        #expect(again == 200)
        await server.shutdown()
    }

    @Test func shutdownEndsEveryStreamCleanly() async throws {
        let app = try Self.app()
        let server = try Self.start(app) { $0.shutdownGracePeriod = .seconds(2) }
        var readers: [StreamingReader] = []
        for _ in 0..<4 {
            let (reader, _, _) = try await Self.open(server.port)
            try await Self.read(reader, until: "retry:")
            readers.append(reader)
        }
        await server.shutdown()
        for reader in readers {
            let text = try await RawConnection.offPool { try reader.readToEnd() }
            #expect(reader.ended)
            #expect(text == "retry: \(EventHub.retryMillis)\n\n")
            #expect(reader.connection.readsEOF())
        }
        #expect(server.openStreams == 0)
        #expect(app.events.openStreams == 0)
    }

    @Test func sigtermWithOpenStreamsExitsZero() async throws {
        let server = try await RawConnection.offPool {
            try ProcessTests.Running(["--quiet", "--grace", "2", "--heartbeat", "200ms"])
        }
        var readers: [StreamingReader] = []
        for _ in 0..<3 {
            let (reader, status, _) = try await Self.open(server.port)
            #expect(status == 200)
            try await Self.read(reader, until: ": ping")
            readers.append(reader)
        }
        let status = try await RawConnection.offPool { server.stop() }
        #expect(status == 0)
        for reader in readers {
            _ = try await RawConnection.offPool { try reader.readToEnd() }
            #expect(reader.ended)
        }
    }
}
