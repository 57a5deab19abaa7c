import Database
import Feed
import Foundation
import Testing

@testable import Storage

/// The store of record on real files: what a reload writes comes back as it was, faults roll
/// back whole, refusals leave the file as it was, the schema upgrades in one transaction.
@Suite("Feed database")
struct FeedDatabaseTests {
    static func item(_ id: String, _ title: String, minutes: Int, updated: Bool = false) -> FeedItem {
        FeedItem(
            id: "k1:\(id)", title: title, body: "Body of \(title) — ünïcode",
            createdAt: Date(
                timeIntervalSince1970: 1_796_000_000 + Double(minutes) * 60 + 0.123),
            url: "https://example.org/\(id)", image: minutes % 2 == 0 ? "https://example.org/\(id).png" : nil,
            updatedAt: updated ? Date(timeIntervalSince1970: 1_796_100_000.5) : nil)
    }

    static func snapshot(_ items: [FeedItem], version: Int, addedIn: [String: Int] = [:], epoch: Int = 42)
        -> FeedSnapshot
    {
        FeedSnapshot(
            version: version, updatedAt: Date(timeIntervalSince1970: 1_796_200_000.25),
            entries: items.sorted(by: FeedItem.newestFirst).map {
                FeedSnapshot.Entry(item: $0, addedIn: addedIn[$0.id] ?? version)
            }, epoch: epoch)
    }

    static let empty = FeedSnapshot(version: 0, updatedAt: Date(timeIntervalSince1970: 0), entries: [])

    @Test func whatAReloadWroteComesBackAfterReopening() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("feed.sqlite")
        let first = Self.snapshot(
            [Self.item("a", "A", minutes: 1), Self.item("b", "B", minutes: 2)], version: 1)
        let second = Self.snapshot(
            [Self.item("b", "B edited", minutes: 2, updated: true), Self.item("c", "C", minutes: 3)],
            version: 2,
            addedIn: ["k1:b": 1])
        do {
            let database = try FeedDatabase(path: path)
            #expect(try database.load(maxItems: 100).snapshot == nil)
            try database.write(first, replacing: Self.empty)
            await database.save(key: "k1", state: Array("{\"etag\":\"x\"}".utf8))
            try database.write(second, replacing: first)
            #expect(database.checkpoint() == nil)
        }
        let reopened = try FeedDatabase(path: path)
        let contents = try reopened.load(maxItems: 100)
        let restored = try #require(contents.snapshot)
        #expect(restored.epoch == 42 && restored.version == 2)
        #expect(restored.updatedAt == second.updatedAt)
        #expect(restored.entries == second.entries)
        #expect(await reopened.load(keys: ["k1", "k2"]) == ["k1": Array("{\"etag\":\"x\"}".utf8)])
        #expect(try reopened.integrityCheck() == "ok")
    }

    @Test func loadingWithALowerMaxItemsRemovesTheOldestFromTheFile() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("feed.sqlite")
        let items = (0..<10).map { Self.item("i\($0)", "I\($0)", minutes: $0) }
        do {
            let database = try FeedDatabase(path: path)
            try database.write(Self.snapshot(items, version: 1), replacing: Self.empty)
        }
        let database = try FeedDatabase(path: path)
        let contents = try database.load(maxItems: 4)
        #expect(contents.trimmed == 6)
        #expect(contents.snapshot?.items.map(\.id) == ["k1:i9", "k1:i8", "k1:i7", "k1:i6"])
        #expect(try database.load(maxItems: 100).snapshot?.entries.count == 4)
    }

    @Test func aFullDiskFailsTheWriteAsUnavailableKeepsWhatWasCommittedAndDropsTheReloadsStates() async throws
    {
        let folder = try TemporaryFolder()
        let database = try FeedDatabase(path: folder.path("full.sqlite"))
        let first = Self.snapshot([Self.item("a", "A", minutes: 1)], version: 1)
        await database.save(key: "k1", state: Array("old".utf8))
        try database.write(first, replacing: Self.empty)
        try database.limitPages(try database.pageCount() + 1)
        let big = (0..<50).map {
            FeedItem(
                id: "k1:big\($0)", title: String(repeating: "t", count: 3000), body: "",
                createdAt: Date(timeIntervalSince1970: 1_796_000_000 + Double($0)))
        }
        let second = Self.snapshot([Self.item("a", "A", minutes: 1)] + big, version: 2, addedIn: ["k1:a": 1])
        await database.save(key: "k1", state: Array("new validators".utf8))
        var failure: FeedError?
        do {
            try database.write(second, replacing: first)
        } catch {
            failure = error
        }
        #expect(failure?.retryAfter == FeedDatabase.retryAfter)
        #expect(failure?.message.contains("SQLITE_FULL") == true)
        // The validators of the failed reload are gone with it: the next fetch is not fooled by them.
        #expect(await database.load(keys: ["k1"]) == ["k1": Array("old".utf8)])
        try database.limitPages(1_000_000)
        #expect(try database.load(maxItems: 100).snapshot?.entries == first.entries)
        try database.write(second, replacing: first)
        #expect(try database.load(maxItems: 100).snapshot?.entries.count == 51)
        #expect(try database.integrityCheck() == "ok")
    }

    /// A copy of the committed fixture: a database of schema version 1, written by pullrefresh
    /// (one river source; "beta" edited in place in version 2, "gamma" added in it).
    static func fixtureCopy(in folder: TemporaryFolder) throws -> String {
        let fixture = try #require(
            Bundle.module.url(forResource: "Fixtures/schema-v1", withExtension: "sqlite"))
        let path = folder.path("schema-v1.sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)
        return path
    }

    @Test func theSchemaVersion1FixtureOpensWithTheCurrentCode() async throws {
        let folder = try TemporaryFolder()
        let database = try FeedDatabase(path: try Self.fixtureCopy(in: folder))
        let snapshot = try #require(try database.load(maxItems: 100).snapshot)
        #expect(snapshot.version == 2 && snapshot.position.tag == "hoqllmr1y0")
        #expect(
            snapshot.items.map(\.id) == ["0607727f0a00:gamma", "0607727f0a00:beta", "0607727f0a00:alpha"])
        #expect(snapshot.entries.map(\.addedIn) == [2, 1, 1])
        #expect(snapshot.items[1].title == "Beta edited" && snapshot.items[1].updatedAt != nil)
        #expect(snapshot.items[0].url == "http://127.0.0.1/fixture/gamma")
        let state = await database.load(keys: ["0607727f0a00"])["0607727f0a00"] ?? []
        #expect(String(decoding: state, as: UTF8.self).contains("\"etag\":\"\\\"b38e1964ddcfaf2d\\\"\""))
    }

    @Test func anUpgradeRunsInOneTransactionAndAFailingOneLeavesTheFileAsItWas() throws {
        let folder = try TemporaryFolder()
        let path = try Self.fixtureCopy(in: folder)
        // The fixture is version 1: a failing step after the standard ones takes every step back.
        let next = Schema.standard.current + 1
        var failing = Schema.standard
        failing.steps.append(
            Schema.Step(version: next, sql: "CREATE TABLE marks (id TEXT); INSERT INTO nowhere VALUES (1)"))
        #expect {
            _ = try FeedDatabase(path: path, schema: failing)
        } throws: {
            ($0 as? StorageError)?.message.contains("upgrading from schema version 1 failed") == true
        }
        do {
            let check = try DatabaseConnection(path: path, mode: .readOnly)
            #expect(try check.integer("PRAGMA user_version") == 1)
            #expect(try check.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'marks'") == 0)
        }
        var upgraded = Schema.standard
        upgraded.steps.append(
            Schema.Step(version: next, sql: "CREATE TABLE marks (id TEXT PRIMARY KEY, read INTEGER NOT NULL)")
        )
        do {
            let database = try FeedDatabase(path: path, schema: upgraded)
            #expect(try database.load(maxItems: 100).snapshot?.entries.count == 3)
        }
        let check = try DatabaseConnection(path: path, mode: .readOnly)
        #expect(try check.integer("PRAGMA user_version") == Int64(next))
        #expect(try check.integer("SELECT count(*) FROM sqlite_schema WHERE name = 'marks'") == 1)
        // The standard schema now finds a newer file and refuses it.
        #expect {
            _ = try FeedDatabase(path: path)
        } throws: { ($0 as? StorageError)?.message.contains("schema version \(next), newer") == true }
    }
}
