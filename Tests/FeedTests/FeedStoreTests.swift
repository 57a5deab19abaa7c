import Foundation
import TestSupport
import Testing

@testable import Feed

/// A source that counts fetches and can be told to fail.
final class CountingSource: FeedSource, @unchecked Sendable {
    private let lock = NSLock()
    private var fetches = 0
    var failing = false
    var fetchCount: Int { lock.withLock { fetches } }

    func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        let (count, fail) = lock.withLock { () -> (Int, Bool) in
            fetches += 1
            return (fetches, failing)
        }
        if fail { throw FeedError("upstream is down") }
        let next = (current.compactMap { Int($0.id) }.max() ?? 0) + 1
        return [FeedSamples.item(next, minute: 1000 + count)] + current
    }
}

@Suite("FeedStore")
struct FeedStoreTests {
    @Test func twoHundredConcurrentRefreshesShareOneReload() async throws {
        let clock = ManualClock()
        let source = CountingSource()
        let store = FeedStore(
            initial: [FeedSamples.item(1)], source: source, delay: .seconds(1), maxItems: 50, clock: clock)
        try await withThrowingTaskGroup(of: FeedStore.ReloadOutcome.self) { group in
            for _ in 0..<200 {
                group.addTask { try await store.reload() }
            }
            // Exactly one reload is sleeping on the clock while 200 callers wait.
            #expect(await clock.waitForSleepers(1))
            try await Task.sleep(for: .milliseconds(50))
            #expect(clock.sleeperCount == 1)
            #expect(store.current.version == 1)
            clock.advance(by: .seconds(1))
            var outcomes: [FeedStore.ReloadOutcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            #expect(outcomes.count == 200)
            #expect(Set(outcomes.map(\.reloadNumber)) == [1])
            #expect(Set(outcomes.map(\.snapshot.version)) == [2])
        }
        #expect(source.fetchCount == 1)
        #expect(store.reloadsStarted == 1)
    }

    @Test func readsDoNotWaitForAPendingReload() async throws {
        let clock = ManualClock()
        let store = FeedStore(
            initial: [FeedSamples.item(1)], source: CountingSource(), delay: .seconds(5), maxItems: 50,
            clock: clock)
        let pending = Task { try await store.reload() }
        #expect(await clock.waitForSleepers(1))
        #expect(await store.isReloading)
        #expect(store.current.version == 1)
        #expect(store.current.items.map(\.id) == ["1"])
        clock.advance(by: .seconds(5))
        let outcome = try await pending.value
        #expect(outcome.snapshot.items.map(\.id) == ["2", "1"])
    }

    @Test func aReloadAfterTheFirstFinishedStartsAnother() async throws {
        let source = CountingSource()
        let store = FeedStore(initial: [FeedSamples.item(1)], source: source, delay: .zero, maxItems: 50)
        let first = try await store.reload()
        let second = try await store.reload()
        #expect(first.reloadNumber == 1)
        #expect(second.reloadNumber == 2)
        #expect(second.snapshot.version == 3)
        #expect(source.fetchCount == 2)
    }

    @Test func aFailedReloadKeepsTheLastGoodData() async throws {
        let source = CountingSource()
        let store = FeedStore(initial: [FeedSamples.item(1)], source: source, delay: .zero, maxItems: 50)
        _ = try await store.reload()
        let before = store.current
        source.failing = true
        await #expect(throws: FeedError("upstream is down")) { try await store.reload() }
        #expect(store.current.version == before.version)
        #expect(store.current.items == before.items)
        #expect(await store.lastFailure == FeedError("upstream is down"))
        source.failing = false
        _ = try await store.reload()
        #expect(await store.lastFailure == nil)
        #expect(store.current.version == before.version + 1)
    }

    @Test func versionOnlyGrowsAndUnchangedDataKeepsIt() async throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.json")
        try FeedSamples.writeData([FeedSamples.item(1), FeedSamples.item(2)], to: file)
        let source = FileSource(path: file.path)
        let store = FeedStore(initial: try source.load(), source: source, delay: .zero, maxItems: 50)
        var versions = [store.current.version]
        _ = try await store.reload()
        versions.append(store.current.version)
        try FeedSamples.writeData([FeedSamples.item(1), FeedSamples.item(2), FeedSamples.item(3)], to: file)
        _ = try await store.reload()
        versions.append(store.current.version)
        try FeedSamples.writeData([FeedSamples.item(1)], to: file)
        _ = try await store.reload()
        versions.append(store.current.version)
        #expect(versions == [1, 1, 2, 3])
        #expect(store.current.added(since: 1).isEmpty)
    }

    @Test func itemsRememberTheVersionTheyArrivedIn() async throws {
        let store = FeedStore(
            initial: [FeedSamples.item(1)], source: CountingSource(), delay: .zero, maxItems: 50)
        _ = try await store.reload()
        _ = try await store.reload()
        let snapshot = store.current
        #expect(snapshot.entries.map(\.addedIn) == [3, 2, 1])
        #expect(snapshot.added(since: 1).map(\.id) == ["3", "2"])
        #expect(snapshot.added(since: 3).isEmpty)
    }

    @Test func trimsToMaxItemsKeepingTheNewest() async throws {
        let initial = (1...5).map { FeedSamples.item($0) }
        let store = FeedStore(initial: initial, source: CountingSource(), delay: .zero, maxItems: 3)
        #expect(store.current.items.map(\.id) == ["5", "4", "3"])
        _ = try await store.reload()
        #expect(store.current.items.map(\.id) == ["6", "5", "4"])
    }

    @Test func generatorIsDeterministicForASeed() async throws {
        let fixed = Date(timeIntervalSince1970: 1_767_225_600)
        let a = GeneratorSource(seed: 9, now: { fixed })
        let b = GeneratorSource(seed: 9, now: { fixed })
        let c = GeneratorSource(seed: 10, now: { fixed })
        #expect(a.initialItems(count: 10) == b.initialItems(count: 10))
        #expect(a.initialItems(count: 10).map(\.title) != c.initialItems(count: 10).map(\.title))
        let start = a.initialItems(count: 10)
        let next = try await a.fetch(current: start)
        #expect(try await b.fetch(current: start) == next)
        #expect((1...3).contains(next.count - start.count))
        #expect(Int(next.first!.id)! > 10)
    }
}

@Suite("Data files")
struct FileSourceTests {
    static func parse(_ json: String) throws(FeedError) -> [FeedItem] {
        try FileSource.parse(Data(json.utf8), name: "feed.json")
    }

    @Test func parsesAndSortsNewestFirst() throws {
        let items = try Self.parse(
            """
            {"items": [
              {"id": 1, "title": "old", "body": "b", "createdAt": "2026-01-01T00:00:00Z"},
              {"id": 2, "title": "new", "createdAt": "2026-01-02T00:00:00.250+01:00"}
            ]}
            """)
        #expect(items.map(\.id) == ["2", "1"])
        #expect(items[0].body == "")
    }

    @Test func keepsAnItemsImage() throws {
        let items = try Self.parse(
            """
            {"items": [{"id": "p", "title": "with a picture", "createdAt": "2026-01-01T00:00:00Z",
              "image": "https://img.example.org/p.jpg"}]}
            """)
        #expect(items.map(\.image) == ["https://img.example.org/p.jpg"])
    }

    @Test(arguments: [
        ("not json", "not valid JSON"),
        ("[]", "must be"),
        ("{\"items\": {}}", "items must be an array"),
        (
            "{\"items\": [{\"id\": true, \"title\": \"t\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].id must be a string"
        ),
        (
            "{\"items\": [{\"id\": \"\", \"title\": \"t\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].id must be a string of 1 to 256 characters"
        ),
        (
            "{\"items\": [{\"id\": \"a\", \"title\": \"t\", \"url\": \"javascript:alert(1)\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].url must be an absolute http or https URL"
        ),
        (
            "{\"items\": [{\"id\": \"a\", \"title\": \"t\", \"image\": \"data:image/png;base64,AA\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].image must be an absolute http or https URL"
        ),
        (
            "{\"items\": [{\"id\": 0, \"title\": \"t\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].id must be a positive integer or a string"
        ),
        ("{\"items\": [{\"id\": 1, \"createdAt\": \"2026-01-01T00:00:00Z\"}]}", "items[0].title is missing"),
        (
            "{\"items\": [{\"id\": 1, \"title\": \"\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[0].title must be a non-empty"
        ),
        (
            "{\"items\": [{\"id\": 1, \"title\": \"t\", \"createdAt\": \"yesterday\"}]}",
            "items[0].createdAt must be an ISO 8601"
        ),
        (
            "{\"items\": [{\"id\": 1, \"title\": \"t\", \"createdAt\": \"2026-02-30T00:00:00Z\"}]}",
            "items[0].createdAt"
        ),
        (
            "{\"items\": [{\"id\": 1, \"title\": \"t\", \"createdAt\": \"2026-01-01T00:00:00Z\"}, {\"id\": 1, \"title\": \"u\", \"createdAt\": \"2026-01-01T00:00:00Z\"}]}",
            "items[1].id 1 is a duplicate"
        ),
    ])
    func rejectsBadFilesWithAClearMessage(json: String, expected: String) {
        do {
            _ = try Self.parse(json)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(error.message.hasPrefix("data file feed.json"))
        }
    }

    @Test func missingOrHugeFilesFail() throws {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: FeedError.self) {
            try FileSource(path: directory.appendingPathComponent("nope.json").path).load()
        }
        #expect(throws: FeedError.self) { try FileSource(path: directory.path).load() }
        let big = directory.appendingPathComponent("big.json")
        try Data(repeating: 32, count: 2048).write(to: big)
        do {
            _ = try FileSource(path: big.path, maxBytes: 1024).load()
            Issue.record("accepted an oversized file")
        } catch {
            #expect(error.message.contains("limit"))
        }
    }

    @Test func timestampsRoundTrip() {
        let date = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(Timestamp.iso(date) == "2026-01-01T00:00:00Z")
        #expect(Timestamp.display(date.addingTimeInterval(3_723)) == "2026-01-01 01:02 UTC")
        #expect(Timestamp.iso(date.addingTimeInterval(3_723)) == "2026-01-01T01:02:03Z")
        #expect(Timestamp.parse("2026-01-01T00:00:00Z") == date)
        #expect(Timestamp.parse("2026-01-01T01:00:00+01:00") == date)
        #expect(Timestamp.parse("2026-01-01 00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-13-01T00:00:00Z") == nil)
    }
}
