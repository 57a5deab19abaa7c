import Feed
import Foundation
import HTTPServer
import Storage
import TestSupport
import Testing

@testable import River

/// A river whose store of record fails to write (a full disk, `PRAGMA max_page_count`): the
/// reload fails as unavailable, reads keep serving what was committed, and once there is room
/// again the next reload brings what the failed one could not keep.
@Suite("A river on a database that fills up")
struct DatabaseFaultTests {
    @Test func aFullDiskFailsOneReloadWith503LosesNothingAndTheNextReloadCatchesUp() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ptr-fault-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try FeedDatabase(path: folder.appendingPathComponent("feed.sqlite").path)
        let name = RiverServer.name("full")
        let server = try RiverServer.running()
        let now = Int(Date().timeIntervalSince1970)
        try await server.put(name, [("two", "Two", now - 60), ("one", "One", now - 120)])
        let fixture = try await RiverTests.Fixture([name], database: database)
        let key = fixture.key(name)
        let before = try await fixture.ids()
        #expect(before == ["\(key):two", "\(key):one"])
        let version = fixture.store.currentVersion
        // The disk fills up; the feed rolls to many new items.
        try database.limitPages(try database.pageCount())
        try await server.put(
            name, (0..<40).map { ("new\($0)", String(repeating: "LongTitle", count: 40), now - $0) })
        let failed = try await fixture.send("POST", "/api/refresh")
        #expect(failed.status == 503)
        #expect(failed.headers["Retry-After"] == String(FeedDatabase.retryAfter))
        #expect(String(decoding: failed.body, as: UTF8.self).contains("SQLITE_FULL"))
        // Reads keep serving what was committed.
        #expect(try await fixture.ids() == before)
        #expect(fixture.store.currentVersion == version)
        #expect(try await fixture.send("GET", "/").status == 200)
        #expect(try database.load(maxItems: 1000).snapshot?.items.map(\.id) == before)
        // Room again: the next reload fetches the document anew (the failed reload's validators
        // were dropped with it) and keeps everything.
        try database.limitPages(1_000_000)
        let healed = try await fixture.send("POST", "/api/refresh")
        #expect(healed.status == 200)
        let ids = try await HistoryTests.walk(fixture, limit: 100)
        #expect(ids.count == 42 && ids.suffix(2) == before[...])
        #expect(try database.load(maxItems: 1000).snapshot?.items.map(\.id) == ids)
        #expect(try database.integrityCheck() == "ok")
    }
}
