import Foundation
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb
@testable import HTTPServer

/// The hub's fan-out over real streams: which groups it wakes, in which order, and that it goes
/// on to the next group only once the server took the previous one's bytes.
@Suite("The event fan-out, group by group")
struct EventFanOutTests {
    /// A server with `count` open streams, each past its `retry:` hint (so libmicrohttpd has read
    /// each stream once and its thread is known), and the clients' readers.
    static func serverWithStreams(_ count: Int) async throws -> (FeedApp, Server, [StreamingReader]) {
        let app = try EventStreamTests.app()
        let server = try EventStreamTests.start(app)
        var readers: [StreamingReader] = []
        for _ in 0..<count {
            let (reader, _, _) = try await EventStreamTests.open(server.port)
            try await EventStreamTests.read(reader, until: "retry:")
            readers.append(reader)
        }
        try await EventStreamTests.eventually { app.events.openStreams == count }
        return (app, server, readers)
    }

    @Test func unreadStreamsAreOneQueueCutInOrder() {
        let streams = (0..<10).map { _ in ResponseStream() }
        let groups = EventHub.schedule(streams, batch: 4)
        #expect(groups.map(\.count) == [4, 4, 2])
        #expect(groups.flatMap { $0 }.map(ObjectIdentifier.init) == streams.map(ObjectIdentifier.init))
    }

    @Test func everyGroupIsOneThreadsAndTheThreadsTakeTurns() async throws {
        let (app, server, _) = try await Self.serverWithStreams(24)
        let streams = app.events.streams
        let groups = EventHub.schedule(streams, batch: 4)
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
        let (app, server, readers) = try await Self.serverWithStreams(24)
        let streams = app.events.streams
        let event = Array("event: version\ndata: {}\n\n".utf8)
        await EventHub.fanOut(event, to: streams, batch: 4, bound: .seconds(60))
        // The last group too: the hub waited until libmicrohttpd had taken its bytes.
        #expect(streams.allSatisfy { $0.pendingByteCount == 0 })
        await EventHub.fanOut(Array(": end\n\n".utf8), to: streams, batch: 4, bound: .seconds(60))
        for reader in readers {
            let text = try await EventStreamTests.read(reader, until: ": end\n\n")
            #expect(text == "retry: \(EventHub.retryMillis)\n\nevent: version\ndata: {}\n\n: end\n\n")
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
