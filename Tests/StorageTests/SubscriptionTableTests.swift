import Database
import Feed
import Foundation
import Testing

@testable import Storage

/// The subscriptions table on real files: every change committed when it returns (a reopened
/// file has it), the command line's sources synced in as the operator's, positions never
/// reused, and a failed write leaving the list as it was.
@Suite("Subscription table")
struct SubscriptionTableTests {
    static func record(
        _ path: String, title: String? = nil, folder: String? = nil, origin: SubscriptionOrigin = .owner
    )
        -> SubscriptionRecord
    {
        SubscriptionRecord(
            url: URL(string: "https://feeds.example.org/\(path)")!, title: title, folder: folder,
            origin: origin,
            addedAt: Date(timeIntervalSince1970: 1_796_000_000.5))
    }

    @Test func changesSurviveReopeningTheFile() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("feed.sqlite")
        do {
            let database = try FeedDatabase(path: path)
            let table = try SubscriptionTable(database)
            #expect(try table.all().isEmpty)
            #expect(try table.hasEverHadSources() == false)
            let added = try table.add([
                Self.record("a.xml", title: "A"), Self.record("b.xml", folder: "News"), Self.record("c.xml"),
            ])
            #expect(added.map(\.position) == [1, 2, 3])
            // Already kept: left out, and no position spent on it.
            #expect(try table.add([Self.record("a.xml", title: "again")]).isEmpty)
            let renamed = try table.update(key: added[1].key, title: "B, renamed", folder: nil)
            #expect(renamed?.title == "B, renamed")
            #expect(renamed?.folder == "News")
            #expect(try table.update(key: added[1].key, title: nil, folder: "")?.folder == nil)
            #expect(try table.update(key: "000000000000", title: "x", folder: nil) == nil)
            #expect(try table.remove(key: added[0].key))
            #expect(try table.remove(key: added[0].key) == false)
            #expect(database.checkpoint() == nil)
        }
        let database = try FeedDatabase(path: path)
        let table = try SubscriptionTable(database)
        let kept = try table.all()
        #expect(kept.map(\.url.lastPathComponent) == ["b.xml", "c.xml"])
        #expect(kept[0].title == "B, renamed")
        #expect(kept[0].folder == nil)
        #expect(kept[0].origin == .owner)
        #expect(kept[0].addedAt == Date(timeIntervalSince1970: 1_796_000_000.5))
        #expect(kept[0].key == SourceKey.of(kept[0].url))
        #expect(try table.hasEverHadSources())
        // Positions are never reused: the next one follows the highest ever given.
        #expect(try table.add([Self.record("d.xml")]).first?.position == 4)
    }

    @Test func theCommandLineIsSyncedInAsTheOperators() async throws {
        let folder = try TemporaryFolder()
        let database = try FeedDatabase(path: folder.path("feed.sqlite"))
        let table = try SubscriptionTable(database)
        _ = try table.add([
            Self.record("mine.xml", title: "Mine"), Self.record("shared.xml", title: "Owner's"),
        ])
        let first = try table.syncCommandLine([
            Self.record("op1.xml", title: "Op 1", folder: "Ops", origin: .commandLine),
            Self.record("shared.xml", title: "Operator's", origin: .commandLine),
        ])
        #expect(first.map(\.url.lastPathComponent) == ["mine.xml", "shared.xml", "op1.xml"])
        #expect(first.map(\.origin) == [.owner, .commandLine, .commandLine])
        // The owner's title of a feed the operator now lists stays; the new row has the OPML's.
        #expect(first[1].title == "Owner's")
        #expect(first[2].title == "Op 1")
        #expect(first[2].folder == "Ops")
        // The owner renames an operator's source; the next start keeps that, and drops what the
        // command line no longer lists (the owner's rows stay).
        _ = try table.update(key: first[2].key, title: "Renamed", folder: "Moved")
        let second = try table.syncCommandLine([Self.record("op1.xml", title: "Op 1", origin: .commandLine)])
        #expect(second.map(\.url.lastPathComponent) == ["mine.xml", "op1.xml"])
        #expect(second[1].title == "Renamed")
        #expect(second[1].folder == "Moved")
        #expect(try table.syncCommandLine([]).map(\.url.lastPathComponent) == ["mine.xml"])
    }

    /// How many rows of the file's `sources` (fetch states) have `key`, read over a connection
    /// of its own (what another process, or the next start, reads).
    static func stateRows(_ path: String, _ key: String) throws -> Int64 {
        let connection = try DatabaseConnection(path: path, mode: .readOnly)
        return try connection.integer("SELECT count(*) FROM sources WHERE key = '\(key)'") ?? -1
    }

    @Test func aRemovedSourcesStateLeavesTheFileWithIt() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("feed.sqlite")
        let (mine, other, dropped) = (
            Self.record("mine.xml"), Self.record("other.xml"), Self.record("op.xml")
        )
        do {
            let database = try FeedDatabase(path: path)
            let table = try SubscriptionTable(database)
            _ = try table.add([mine, other])
            _ = try table.syncCommandLine([Self.record("op.xml", origin: .commandLine)])
            for (key, byte) in [(mine.key, UInt8(1)), (other.key, 2), (dropped.key, 3)] {
                await database.save(key: key, state: [byte])
            }
            let empty = FeedSnapshot(version: 0, updatedAt: Date(), entries: [])
            try database.write(empty, replacing: empty)
            #expect(try Self.stateRows(path, mine.key) == 1)
            // The owner removes a feed: its state row goes in the same transaction.
            #expect(try table.remove(key: mine.key))
            #expect(try Self.stateRows(path, mine.key) == 0)
            #expect(try Self.stateRows(path, other.key) == 1)
            // The command line drops one: the same at the next start's sync.
            #expect(try table.syncCommandLine([]).map(\.key) == [other.key])
            #expect(try Self.stateRows(path, dropped.key) == 0)
            // The store forgets a state saved for the next write (a fetch in flight at removal):
            // that write does not put the row back.
            await database.save(key: other.key, state: [4])
            #expect(try table.remove(key: other.key))
            await database.remove(key: other.key)
            try database.write(empty, replacing: empty)
            #expect(try Self.stateRows(path, other.key) == 0)
            #expect(await database.load(keys: [other.key]).isEmpty)
            #expect(database.checkpoint() == nil)
        }
        let reopened = try FeedDatabase(path: path)
        _ = try reopened.load(maxItems: 10)
        #expect(await reopened.load(keys: [mine.key, other.key, dropped.key]).isEmpty)
    }

    @Test func aFailedWriteLeavesTheListAsItWas() async throws {
        let folder = try TemporaryFolder()
        let database = try FeedDatabase(path: folder.path("feed.sqlite"))
        let table = try SubscriptionTable(database)
        _ = try table.add([Self.record("kept.xml")])
        // The file may not grow: a big insert fails with SQLITE_FULL and rolls back whole.
        try table.limitPages(try database.pageCount())
        let many = (0..<400).map { Self.record("\($0)-" + String(repeating: "x", count: 900)) }
        #expect {
            try table.add(many)
        } throws: { error in
            (error as? SubscriptionError)?.code == .storage
        }
        #expect(try table.all().map(\.url.lastPathComponent) == ["kept.xml"])
    }
}
