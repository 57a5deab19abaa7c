import Feed
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import River

/// A reader that remembers, in memory: documents that roll, change or break never take away
/// what the store has seen; retention does, by age and by count. Real feeds on loopback
/// (`Fixtures/river_server.py`), the river, the store and the routes together.
@Suite("History of a river's items")
struct HistoryTests {
    /// 2026-01-01, the date the loopback feeds start from.
    static let base = 1_767_225_600
    /// Retention that keeps these old dates (the default, 180 days, would remove them as soon
    /// as no document carries them).
    static let longHistory = SourceHistory(keepDays: 36_500)

    /// Every item id by walking `/api/items` with `limit` per page, following `nextCursor`.
    static func walk(_ fixture: RiverTests.Fixture, limit: Int = 1) async throws -> [String] {
        var ids: [String] = []
        var cursor: String?
        repeat {
            let query = "?limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try await fixture.json("GET", "/api/items\(query)")
            ids += (page["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            cursor = page["nextCursor"] as? String
            #expect(ids.count < 1000, "the cursor walk does not end")
        } while cursor != nil && ids.count < 1000
        return ids
    }

    /// Every item id by following the page's "Older items" links from `/`.
    static func olderLinks(_ fixture: RiverTests.Fixture) async throws -> [String] {
        var ids: [String] = []
        var target = "/"
        while ids.count < 1000 {
            let page = String(decoding: try await fixture.send("GET", target).body, as: UTF8.self)
            ids += page.matches(of: /data-item-id="([^"]+)"/).map { String($0.1) }
            guard let older = page.firstMatch(of: /data-ptr-older="([^"]+)"/) else { break }
            target = "/?before=\(older.1)"
        }
        return ids
    }

    @Test func aFeedThatRollsKeepsItsOldItemsAndTheCursorReachesThem() async throws {
        let name = RiverServer.name("rolls")
        let server = try RiverServer.running()
        try await server.put(name, [("two", "Two", Self.base + 120), ("one", "One", Self.base + 60)])
        let fixture = try await Fixture([name], pageSize: 1, history: Self.longHistory)
        let key = fixture.key(name)
        try await server.put(name, [("three", "Three", Self.base + 180)])
        let refreshed = try await fixture.json("POST", "/api/refresh")
        #expect(
            (refreshed["added"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["\(key):three"])
        let expected = ["three", "two", "one"].map { "\(key):\($0)" }
        #expect(try await fixture.ids() == expected)
        #expect(try await Self.walk(fixture) == expected)
        #expect(try await Self.olderLinks(fixture) == expected)
        #expect(fixture.report(name)?.items == 3)
    }

    @Test func anUpdatedItemChangesInPlace() async throws {
        let name = RiverServer.name("edits")
        let server = try RiverServer.running()
        try await server.put(name, [("post", "Draft", Self.base + 60), ("other", "Other", Self.base)])
        let fixture = try await Fixture([name], history: Self.longHistory)
        let key = fixture.key(name)
        let first = try await fixture.json("GET", "/api/items")["items"] as? [[String: Any]] ?? []
        #expect(first.first?["updatedAt"] == nil)
        let addedIn = first.first?["version"] as? Int
        try await server.put(name, [("post", "Final", Self.base + 60)])
        _ = try await fixture.send("POST", "/api/refresh")
        let items = try await fixture.json("GET", "/api/items")["items"] as? [[String: Any]] ?? []
        #expect(items.compactMap { $0["id"] as? String } == ["\(key):post", "\(key):other"])
        #expect(items.first?["title"] as? String == "Final")
        #expect(items.first?["version"] as? Int == addedIn)
        let updatedAt = try #require(items.first?["updatedAt"] as? String)
        // The same document again changes nothing: `updatedAt` stays where it moved.
        try await server.put(name, [("post", "Final", Self.base + 60), ("more", "More", Self.base + 90)])
        _ = try await fixture.send("POST", "/api/refresh")
        let again = try await fixture.json("GET", "/api/items")["items"] as? [[String: Any]] ?? []
        #expect(again.first { $0["id"] as? String == "\(key):post" }?["updatedAt"] as? String == updatedAt)
        #expect(again.first { $0["id"] as? String == "\(key):more" }?["updatedAt"] == nil)
    }

    @Test func aRecoveredJunkDocumentOrAnEmptyOneDeletesNothing() async throws {
        let name = RiverServer.name("junk")
        let server = try RiverServer.running()
        try await server.put(
            name, [("c", "C", Self.base + 180), ("b", "B", Self.base + 120), ("a", "A", Self.base + 60)])
        let fixture = try await Fixture([name], history: Self.longHistory)
        let key = fixture.key(name)
        let good = ["c", "b", "a"].map { "\(key):\($0)" }
        #expect(try await fixture.ids() == good)
        try await server.set(name, "mode=junk")
        let response = try await fixture.send("POST", "/api/refresh")
        #expect(response.status == 200)
        #expect(fixture.report(name)?.recovered != nil)
        let afterJunk = try await fixture.ids()
        #expect(Set(good).isSubset(of: Set(afterJunk)))
        // A document without items is refused as a failure (502): it takes nothing away either.
        try await server.set(name, "mode=ok")
        try await server.put(name, [])
        _ = try await fixture.send("POST", "/api/refresh")
        #expect(Set(good).isSubset(of: Set(try await fixture.ids())))
    }

    @Test func retentionRemovesItemsOlderThanKeepDaysOnceNoDocumentCarriesThem() async throws {
        let name = RiverServer.name("days")
        let server = try RiverServer.running()
        let day = 86_400
        // The river's clock is ten days after the base; two days are kept.
        let time = TestTime(Date(timeIntervalSince1970: Double(Self.base + 10 * day)))
        try await server.put(
            name,
            [("recent", "Recent", Self.base + 9 * day), ("ancient", "Ancient", Self.base + day)])
        let fixture = try await Fixture([name], time: time, history: SourceHistory(keepDays: 2))
        let key = fixture.key(name)
        // Carried by the document, the old item stays whatever its age.
        #expect(try await fixture.ids() == ["\(key):recent", "\(key):ancient"])
        _ = try await fixture.send("POST", "/api/refresh")
        #expect(try await fixture.ids() == ["\(key):recent", "\(key):ancient"])
        try await server.put(name, [("latest", "Latest", Self.base + 10 * day)])
        _ = try await fixture.send("POST", "/api/refresh")
        #expect(try await fixture.ids() == ["\(key):latest", "\(key):recent"])
        // A day and a half later "recent" is older than two days and goes with the next
        // document; "latest" is not and stays.
        time.advance(1.5 * Double(day))
        try await server.put(name, [("newest", "Newest", Self.base + 11 * day)])
        _ = try await fixture.send("POST", "/api/refresh")
        #expect(try await fixture.ids() == ["\(key):newest", "\(key):latest"])
    }

    @Test func retentionKeepsTheNewestItemsPerSourceAndMaxItemsBoundsTheStore() async throws {
        let (name, other) = (RiverServer.name("count"), RiverServer.name("bystander"))
        let server = try RiverServer.running()
        try await server.put(name, [("i1", "1", Self.base + 60)])
        try await server.put(other, [("o1", "O", Self.base)])
        let fixture = try await Fixture(
            [name, other], history: SourceHistory(keepDays: 36_500, keepPerSource: 3))
        let key = fixture.key(name)
        for number in 2...5 {
            try await server.put(name, [("i\(number)", "\(number)", Self.base + 60 * number)])
            _ = try await fixture.send("POST", "/api/refresh")
        }
        let kept = ["i5", "i4", "i3"].map { "\(key):\($0)" }
        #expect(try await fixture.ids("?source=\(key)") == kept)
        #expect(try await Self.walk(fixture) == kept + ["\(fixture.key(other)):o1"])
        // In memory, --max-items bounds the whole store: the oldest go whatever their source.
        let bounded = try await Fixture(
            [name, other], history: SourceHistory(keepDays: 36_500, keepPerSource: 3), maxItems: 2)
        for number in 6...7 {
            try await server.put(name, [("i\(number)", "\(number)", Self.base + 60 * number)])
            _ = try await bounded.send("POST", "/api/refresh")
        }
        #expect(try await Self.walk(bounded) == ["\(key):i7", "\(key):i6"])
    }
}

extension HistoryTests {
    typealias Fixture = RiverTests.Fixture

    @Test func aDocumentLongerThanKeepPerSourceIsKeptWholeAndItsRepeatsOnce() {
        func item(_ id: String, _ minute: Int) -> FeedItem {
            FeedItem(
                id: "k:\(id)", title: id, body: "",
                createdAt: Date(timeIntervalSince1970: Double(minute) * 60))
        }
        let history = SourceHistory(keepDays: 36_500, keepPerSource: 2)
        let now = Date(timeIntervalSince1970: 100 * 60)
        let held = [item("old", 1)]
        let document = [item("a", 5), item("b", 4), item("a", 5), item("c", 3)]
        #expect(history.merge(held: held, document: document, now: now).map(\.id) == ["k:a", "k:b", "k:c"])
        // Room for one older item: the newest of those the document dropped.
        let roomy = SourceHistory(keepDays: 36_500, keepPerSource: 3)
        let dropped = [item("x", 2), item("y", 3), item("z", 1)]
        #expect(
            roomy.merge(held: dropped, document: [item("d", 9)], now: now).map(\.id) == ["k:d", "k:y", "k:x"])
    }
}
