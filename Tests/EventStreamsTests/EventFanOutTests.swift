import Foundation
import HTTPServer
import Logging
import Synchronization
import TestSupport
import Testing

@testable import EventStreams

/// The fan-out over real streams: which groups it wakes, in which order, and that it goes on
/// to the next group only once the server took the previous one's bytes.
@Suite("The event fan-out, group by group")
struct EventFanOutTests {
    /// A server whose `GET /s` opens a stream (first bytes `retry: 3000`), and the streams open.
    final class StreamServer: Sendable {
        let server: Server
        private let open: Opened

        /// The streams `GET /s` opened, shared with the route's handler.
        final class Opened: Sendable {
            let streams = Mutex<[ResponseStream]>([])
        }

        init() throws {
            var router = Router(logger: Logger(quiet: true))
            let open = Opened()
            self.open = open
            router.get("/s") { _ in
                let stream = ResponseStream(initial: Array("retry: 3000\n\n".utf8))
                open.streams.withLock { $0.append(stream) }
                return .streaming(stream, headers: ["Content-Type": "text/event-stream"])
            }
            var options = ServerOptions()
            options.port = 0
            options.threads = 2
            server = try Server(router: router, options: options, logger: Logger(quiet: true))
        }

        var streams: [ResponseStream] { open.streams.withLock { $0 } }
    }

    /// A server with `count` open streams, each past its `retry:` hint (so libmicrohttpd has read
    /// each stream once and its thread is known), and the clients' readers.
    static func serverWithStreams(_ count: Int) async throws -> (StreamServer, [StreamingReader]) {
        let host = try StreamServer()
        var readers: [StreamingReader] = []
        for _ in 0..<count {
            let reader = try await RawConnection.offPool {
                let connection = try RawConnection(port: host.server.port)
                try connection.send("GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
                let reader = StreamingReader(connection)
                _ = try reader.readHead()
                _ = try reader.read(until: "retry:")
                return reader
            }
            readers.append(reader)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while host.streams.count < count || host.streams.contains(where: { $0.serverThread == nil }),
            ContinuousClock.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        return (host, readers)
    }

    @Test func unreadStreamsAreOneQueueCutInOrder() {
        let streams = (0..<10).map { _ in ResponseStream() }
        let groups = StreamFanOut.schedule(streams, batch: 4)
        #expect(groups.map(\.count) == [4, 4, 2])
        #expect(groups.flatMap { $0 }.map(ObjectIdentifier.init) == streams.map(ObjectIdentifier.init))
    }

    @Test func everyGroupIsOneThreadsAndTheThreadsTakeTurns() async throws {
        let (host, _) = try await Self.serverWithStreams(24)
        let (server, streams) = (host.server, host.streams)
        let groups = StreamFanOut.schedule(streams, batch: 4)
        // Every stream exactly once.
        let scheduled = groups.flatMap { $0 }.map(ObjectIdentifier.init)
        #expect(scheduled.count == streams.count)
        #expect(Set(scheduled) == Set(streams.map(ObjectIdentifier.init)))
        // At most 4 streams a group, all of one known server thread (the pool has 2).
        let threads = groups.map { group in Set(group.map(\.serverThread)) }
        #expect(groups.allSatisfy { $0.count <= 4 })
        #expect(threads.allSatisfy { $0.count == 1 && !$0.contains(nil) })
        #expect(Set(threads.flatMap { $0 }).count <= 2)
        // Each thread's streams keep their order; two threads alternate while both have some.
        for thread in Set(threads.flatMap { $0 }) {
            let own = streams.filter { $0.serverThread == thread }.map(ObjectIdentifier.init)
            let inGroups = groups.filter { $0.first?.serverThread == thread }.flatMap { $0 }
            #expect(inGroups.map(ObjectIdentifier.init) == own)
        }
        let groupThreads = groups.map { $0.first?.serverThread }
        let groupsPerThread = Dictionary(grouping: groupThreads, by: { $0 }).values.map(\.count)
        let alternating = groupsPerThread.count == 2 ? 2 * (groupsPerThread.min() ?? 0) : 0
        for index in groups.indices.dropFirst().prefix(max(0, alternating - 1)) {
            #expect(groupThreads[index] != groupThreads[index - 1])
        }
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func aFanOutWaitsForEachGroupAndSendsOnce()
        async throws
    {
        let (host, readers) = try await Self.serverWithStreams(24)
        let (server, streams) = (host.server, host.streams)
        let event = Array("event: version\ndata: {}\n\n".utf8)
        await StreamFanOut.write(event, to: streams, batch: 4, bound: .seconds(60))
        // The last group too: the fan-out waited until libmicrohttpd had taken its bytes.
        #expect(streams.allSatisfy { $0.pendingByteCount == 0 })
        await StreamFanOut.write(Array(": end\n\n".utf8), to: streams, batch: 4, bound: .seconds(60))
        for reader in readers {
            let text = try await RawConnection.offPool { try reader.read(until: ": end\n\n") }
            #expect(text == "retry: 3000\n\nevent: version\ndata: {}\n\n: end\n\n")
        }
        await server.shutdown()
    }

    @Test(.timeLimit(.minutes(1))) func aCountdownEndsWithItsLastArrivalOrWhenItExpires() async {
        let empty = BatchCountdown(count: 0)
        await empty.wait()
        let two = BatchCountdown(count: 2)
        two.arrive()
        two.arrive()
        await two.wait()
        let abandoned = BatchCountdown(count: 3)
        abandoned.arrive()
        let waiter = Task { await abandoned.wait() }
        abandoned.expire()
        await waiter.value
        // Arrivals after the end change nothing.
        abandoned.arrive()
        abandoned.arrive()
        await abandoned.wait()
    }
}
