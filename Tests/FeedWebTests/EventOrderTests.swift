import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// Every version published after a stream opened reaches it, and its ids only move forward:
/// made deterministic by publishing at the exact moment the stream reads its first snapshot
/// (``ScriptedStore/onNextRead(_:)``) and by running the hub's fan-out by hand.
@Suite("Event stream order")
struct EventOrderTests {
    static let epoch = 1_000_000
    static var tag: String { FeedPosition.tag(epoch) }

    static func serve(_ store: ScriptedStore, sources: (any SourceDirectory)? = nil) throws -> (
        FeedApp, Server
    ) {
        let (_, publicDir) = try Fixtures.publicFolder()
        let app = FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: publicDir.path), logger: Logger(quiet: true),
            heartbeat: .seconds(60), sources: sources)
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

    /// Two river sources, as the routes see them.
    struct TwoSources: SourceDirectory {
        static let keys = ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]
        var reports: [SourceReport] { [] }
        var statusGeneration: Int { 0 }
        func label(forItemID id: String) -> SourceLabel? {
            RiverItemID.key(of: id).flatMap { label(forKey: String($0)) }
        }
        func label(forKey key: String) -> SourceLabel? {
            Self.keys.contains(key) ? SourceLabel(key: key, title: "Feed \(key.prefix(1))") : nil
        }
    }

    /// Version `version` of a river: `items` pairs of (source index, guid), newest first.
    static func riverSnapshot(version: Int, _ items: [(source: Int, guid: String, addedIn: Int)])
        -> FeedSnapshot
    {
        let entries = items.enumerated().map { index, entry in
            FeedSnapshot.Entry(
                item: FeedItem(
                    id: RiverItemID.join(key: TwoSources.keys[entry.source], id: entry.guid),
                    title: entry.guid,
                    body: "", createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(index))),
                addedIn: entry.addedIn)
        }
        return FeedSnapshot(
            version: version, updatedAt: Date(timeIntervalSince1970: 1_700_000_000), entries: entries,
            epoch: epoch)
    }

    /// A page of one source opens `/api/events?source=KEY`: the same events, with `added`
    /// counting that source's items only (its pill announces what its tap finds).
    @Test func aStreamOfOneSourceCountsOnlyThatSourcesItems() async throws {
        let store = ScriptedStore(epoch: Self.epoch)
        let first = Self.riverSnapshot(version: 1, [(0, "a1", 1), (1, "b1", 1)])
        store.publish(first)
        let (app, server) = try Self.serve(store, sources: TwoSources())
        let keyB = TwoSources.keys[1]
        let (whole, _, _) = try await EventStreamTests.open(server.port)
        let (onlyB, status, _) = try await EventStreamTests.open(
            server.port, target: "/api/events?source=\(keyB)")
        #expect(status == 200)
        try await EventStreamTests.read(whole, until: "retry:")
        try await EventStreamTests.read(onlyB, until: "retry:")
        try await EventStreamTests.eventually { app.events.openStreams == 2 }
        // Version 2 adds one item of a and two of b.
        let second = Self.riverSnapshot(
            version: 2, [(1, "b3", 2), (0, "a2", 2), (1, "b2", 2), (0, "a1", 1), (1, "b1", 1)])
        store.publish(second)
        await app.events.announce(second)
        let tag = Self.tag
        #expect(try await EventStreamTests.read(whole, until: "}\n\n").hasSuffix("\"added\":3}\n\n"))
        let filtered = try await EventStreamTests.read(onlyB, until: "}\n\n")
        #expect(Self.ids(filtered) == ["\(tag)-2"])
        #expect(filtered.hasSuffix("\"epoch\":\"\(tag)\",\"added\":2}\n\n"))
        // Opened behind, it catches up with that source's count too.
        let (late, _, _) = try await EventStreamTests.open(
            server.port, target: "/api/events?source=\(keyB)&since=\(tag)-1")
        #expect(try await EventStreamTests.read(late, until: "}\n\n").hasSuffix("\"added\":2}\n\n"))
        // The filter is checked as on every route.
        let (_, unknown, _) = try await EventStreamTests.open(
            server.port, target: "/api/events?source=000000000000")
        let (_, malformed, _) = try await EventStreamTests.open(server.port, target: "/api/events?source=b")
        #expect(unknown == 404)
        #expect(malformed == 400)
        await server.shutdown()
    }
}
