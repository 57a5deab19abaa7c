import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// Refresh storms and bad data under a live server: one reload per storm, GETs answered while
/// refreshes wait, 503 + Retry-After past the pending bound, and the last good data kept.
@Suite("Storms and failing data")
struct StormTests {
    @Test func stormSharesOneReloadAndOverflowGets503() async throws {
        let clock = ManualClock()
        let generator = GeneratorSource(seed: 1)
        let store = FeedStore(
            initial: generator.initialItems(count: 5), source: generator, delay: .seconds(1), maxItems: 500,
            clock: clock)
        let app = FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: Fixtures.publicFolder().publicDir.path),
            logger: Logger(quiet: true))
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        options.maxPendingRequests = 150
        let server = try Server(router: app.router(), options: options, logger: Logger(quiet: true))
        let port = server.port

        let storm = try (0..<200).map { _ in try RawConnection(port: port, timeoutSeconds: 20) }
        for connection in storm {
            try connection.send("POST /api/refresh?since=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        }
        #expect(await clock.waitForSleepers(1))
        // The 50 beyond the bound are refused at once; wait until the server has seen them all.
        for _ in 0..<1000 where server.pendingRequests < 150 {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(server.pendingRequests == 150)
        // The clock may only move once every refusal is out: a POST the server had not read
        // yet would otherwise be accepted after the first reload and wait on a second one.
        #expect(await Self.waitUntilReadable(storm, count: 50))
        let get = try await RawConnection.exchange(
            port: port, ["GET /api/items HTTP/1.1\r\nHost: x\r\n\r\n"])[0]
        #expect(get.status == 200)
        clock.advance(by: .seconds(1))

        var statuses: [Int: Int] = [:]
        var versions: Set<String> = []
        for connection in storm {
            let response = try await RawConnection.offPool { try connection.readResponse() }
            statuses[response.status, default: 0] += 1
            if response.status == 200 {
                versions.insert(response.header("X-Feed-Version") ?? "")
            } else {
                #expect(response.status == 503)
                #expect(response.header("Retry-After") == "1")
                let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                #expect((json?["error"] as? [String: String])?["code"] == "unavailable")
            }
        }
        #expect(statuses == [200: 150, 503: 50])
        #expect(versions == ["2"])
        #expect(store.reloadsStarted == 1)
        await server.shutdown()
    }

    /// Polls (bounded) until `count` of the connections have a response waiting.
    static func waitUntilReadable(_ connections: [RawConnection], count: Int) async -> Bool {
        for _ in 0..<2000 {
            var descriptors = connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), 0)
            if ready >= count { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    @Test func dataThatTurnsBadFailsOnlyThatReload() async throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.json")
        try FeedSamples.writeData([FeedSamples.item(1), FeedSamples.item(2)], to: file)
        let source = FileSource(path: file.path, maxBytes: 64 * 1024)
        let store = FeedStore(initial: try source.load(), source: source, delay: .zero, maxItems: 500)
        let good = store.current

        let breakages: [(String, () throws -> Void)] = [
            ("invalid JSON", { try "{\"items\": [".write(to: file, atomically: true, encoding: .utf8) }),
            (
                "bad item",
                { try "{\"items\": [{\"id\": -1}]}".write(to: file, atomically: true, encoding: .utf8) }
            ),
            ("huge", { try Data(repeating: 32, count: 200 * 1024).write(to: file) }),
            ("deleted", { try FileManager.default.removeItem(at: file) }),
            (
                "replaced by a folder",
                {
                    try FileManager.default.removeItem(at: file)
                    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
                }
            ),
        ]
        for (name, breakIt) in breakages {
            try breakIt()
            await #expect(throws: FeedError.self, "\(name)") { try await store.reload() }
            #expect(store.current.version == good.version, "\(name)")
            #expect(store.current.items == good.items, "\(name)")
            try? FileManager.default.removeItem(at: file)
            try FeedSamples.writeData([FeedSamples.item(1), FeedSamples.item(2)], to: file)
        }
        try FeedSamples.writeData([FeedSamples.item(1), FeedSamples.item(2), FeedSamples.item(3)], to: file)
        _ = try await store.reload()
        #expect(store.current.version == good.version + 1)
    }

    @Test func aHugeItemCountStaysWithinMaxItems() async throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.json")
        try FeedSamples.writeData((1...50_000).map { FeedSamples.item($0) }, to: file)
        let source = FileSource(path: file.path)
        let store = FeedStore(initial: [FeedSamples.item(1)], source: source, delay: .zero, maxItems: 500)
        _ = try await store.reload()
        #expect(store.current.items.count == 500)
        #expect(store.current.items.first?.id == "50000")
        let tooMany = FileSource(path: file.path, maxItems: 10_000)
        #expect(throws: FeedError.self) { try tooMany.load() }
    }
}
