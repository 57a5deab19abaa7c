import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import Feed

/// Every version published after a stream opened reaches it, and its ids only move forward:
/// made deterministic by publishing at the exact moment the stream reads its first snapshot
/// (``ScriptedStore/onNextRead(_:)``) and by running the hub's fan-out by hand.
@Suite("Event stream order")
struct EventOrderTests {
    static let epoch = 1_000_000
    static var tag: String { FeedPosition.tag(epoch) }

    static func serve(_ store: ScriptedStore) throws -> (FeedApp, Server) {
        let (_, publicDir) = try Fixtures.publicFolder()
        let app = FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: publicDir.path), logger: Logger(quiet: true),
            heartbeat: .seconds(60))
        return (app, try EventStreamTests.start(app))
    }

    /// The ids in `text`, in order.
    static func ids(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }
    }

    @Test func aVersionPublishedRightAfterTheOpeningReadStillArrives() async throws {
        let store = ScriptedStore(epoch: Self.epoch)
        let (app, server) = try Self.serve(store)
        let second = ScriptedStore.snapshot(version: 2, epoch: Self.epoch)
        // The stream reads version 1; version 2 is published before the read even returns: the
        // hub's fan-out for it waits for the stream's registration and so finds it.
        store.onNextRead {
            let first = store.held
            store.publish(second)
            return first
        }
        let (reader, _, _) = try await EventStreamTests.open(server.port)
        let text = try await EventStreamTests.read(reader, until: "id: \(Self.tag)-2\n")
        #expect(Self.ids(text) == ["\(Self.tag)-2"])
        #expect(app.events.openStreams == 1)
        await server.shutdown()
    }

    @Test func theCatchUpAndTheBroadcastOfOneVersionAreOneEvent() async throws {
        let store = ScriptedStore(epoch: Self.epoch)
        let (app, server) = try Self.serve(store)
        let second = ScriptedStore.snapshot(version: 2, epoch: Self.epoch)
        // Version 2 is current by the time the stream reads it (so it gets it as its catch-up)
        // and its broadcast is still to come.
        store.onNextRead {
            store.publish(second)
            return second
        }
        let (reader, _, _) = try await EventStreamTests.open(
            server.port, extra: "Last-Event-ID: \(Self.tag)-1\r\n")
        try await EventStreamTests.read(reader, until: "id: \(Self.tag)-2\n")
        // The broadcast of version 2, run here to the end: it must not write 2 again.
        await app.events.announce(second)
        await app.events.announce(second)
        let third = ScriptedStore.snapshot(version: 3, epoch: Self.epoch)
        store.publish(third)
        await app.events.announce(third)
        let text = try await EventStreamTests.read(reader, until: "id: \(Self.tag)-3\n")
        #expect(Self.ids(text) == ["\(Self.tag)-2", "\(Self.tag)-3"])
        await server.shutdown()
    }

    @Test func aClientAheadOfThisInstanceGetsNoLowerID() async throws {
        let store = ScriptedStore(epoch: Self.epoch)
        let (app, server) = try Self.serve(store)
        // It saw version 3 elsewhere; this instance still serves 1, then learns 2, 3 and 4.
        let (reader, _, _) = try await EventStreamTests.open(
            server.port, extra: "Last-Event-ID: \(Self.tag)-3\r\n")
        try await EventStreamTests.read(reader, until: "retry:")
        for version in 2...4 {
            let snapshot = ScriptedStore.snapshot(version: version, epoch: Self.epoch)
            store.publish(snapshot)
            await app.events.announce(snapshot)
        }
        let text = try await EventStreamTests.read(reader, until: "id: \(Self.tag)-4\n")
        #expect(Self.ids(text) == ["\(Self.tag)-4"])
        #expect(text.contains("\"added\":1}"))
        await server.shutdown()
    }

    @Test func anIDFromAnOlderEpochGetsEverything() async throws {
        let store = ScriptedStore(epoch: Self.epoch, items: 4)
        let (_, server) = try Self.serve(store)
        // Version 7 of an older epoch is higher than 1 of this one, and says nothing about it.
        let older = FeedPosition(epoch: Self.epoch - 1, version: 7).eventID
        let (reader, _, _) = try await EventStreamTests.open(
            server.port, extra: "Last-Event-ID: \(older)\r\n")
        let text = try await EventStreamTests.read(reader, until: "}\n\n")
        #expect(Self.ids(text) == ["\(Self.tag)-1"])
        #expect(text.contains("\"epoch\":\"\(Self.tag)\",\"added\":4}"))
        // `?since=` takes an event id too.
        let (viaQuery, _, _) = try await EventStreamTests.open(
            server.port, target: "/api/events?since=\(older)")
        #expect(try await EventStreamTests.read(viaQuery, until: "}\n\n") == text)
        await server.shutdown()
    }

    @Test func aNewEpochReachesEveryStreamAsAFullCatchUp() async throws {
        let store = ScriptedStore(epoch: Self.epoch, items: 2)
        let (app, server) = try Self.serve(store)
        let (reader, _, _) = try await EventStreamTests.open(server.port)
        try await EventStreamTests.read(reader, until: "retry:")
        let third = ScriptedStore.snapshot(version: 3, epoch: Self.epoch, items: 2)
        store.publish(third)
        await app.events.announce(third)
        // Redis lost the feed and another instance seeded it: version 2 of a newer epoch.
        let newer = ScriptedStore.snapshot(version: 2, epoch: Self.epoch + 5, items: 2)
        store.publish(newer)
        await app.events.announce(newer)
        let newTag = FeedPosition.tag(Self.epoch + 5)
        let text = try await EventStreamTests.read(reader, until: "id: \(newTag)-2\n")
        let last = try await EventStreamTests.read(reader, until: "}\n\n")
        #expect(Self.ids(text) == ["\(Self.tag)-3", "\(newTag)-2"])
        #expect(last.hasSuffix("\"epoch\":\"\(newTag)\",\"added\":3}\n\n"))
        await server.shutdown()
    }
}
