import Feed
import FeedParsing
import Foundation
import HTTPClient
import Logging
import Storage
import Synchronization
import TestSupport
import Testing

@testable import River

/// Subscriptions changed at runtime over real feeds on loopback and a real SQLite file: the
/// table, the river's members and the store's snapshot agree after every change, and a change
/// fetches only what it needs.
@Suite("Subscriptions that change at runtime")
struct SubscriptionTests {
    /// A river over a database's subscriptions table, its store, and the book over them.
    final class Fixture: Sendable {
        let folder: URL
        let database: FeedDatabase
        let table: SubscriptionTable
        let river: River
        let store: FeedStore
        let book: RiverSubscriptions
        let server: RiverServer

        /// `operators`: feed names on the command line; `demo`: the generator stands in while
        /// the river never had a member.
        init(
            operators: [String] = [], demo: Bool = false, refreshEvery: Duration? = .seconds(900),
            folder: URL? = nil
        )
            async throws
        {
            server = try RiverServer.running()
            let folder =
                folder
                ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                    "ptr-subs-" + UUID().uuidString.prefix(8).lowercased())
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            self.folder = folder
            database = try FeedDatabase(path: folder.appendingPathComponent("feed.sqlite").path)
            let restored = try database.load(maxItems: 1000)
            table = try SubscriptionTable(database)
            let server = server
            let records = try table.syncCommandLine(
                operators.map { SubscriptionRecord(url: server.url($0), origin: .commandLine) })
            let limits = FetchLimits(totalTimeout: 5, userAgent: "pullrefresh/test")
            river = River(
                records: records, limits: limits, refreshEvery: refreshEvery, ownerPolicy: .any,
                demo: demo ? GeneratorSource(seed: 7) : nil, hasHadMembers: try table.hasEverHadSources(),
                random: { 0.5 })
            await river.useStateStore(database)
            let snapshot: FeedSnapshot
            if let kept = restored.snapshot {
                snapshot = kept
            } else {
                let initial =
                    river.isDemo
                    ? GeneratorSource(seed: 7).initialItems(count: 5) : try await river.fetch(current: [])
                snapshot = FeedStore.firstSnapshot(of: initial, maxItems: 1000, at: Date())
                try database.write(
                    snapshot, replacing: FeedSnapshot(version: 0, updatedAt: snapshot.updatedAt, entries: []))
            }
            store = FeedStore(
                restoring: snapshot, record: database, source: river, delay: .zero, maxItems: 1000)
            river.countHeld(snapshot.items)
            book = RiverSubscriptions(
                river: river, records: table, finder: FeedFinder(limits: limits, policy: .any),
                logger: Logger(quiet: true))
            book.attach(store)
        }

        /// Removes the folder (the database closes with the fixture).
        func remove() { try? FileManager.default.removeItem(at: folder) }

        /// The store's item ids whose source is `key`.
        func ids(of key: String) -> [String] {
            store.current.items.map(\.id).filter { RiverItemID.key(of: $0).map(String.init) == key }
        }

        func key(_ name: String) -> String { SourceKey.of(server.url(name)) }
    }

    @Test func aNewSourceIsFetchedAtOnceAndNothingElseIsFetchedAgain() async throws {
        let server = try RiverServer.running()
        let (old, new) = (RiverServer.name("old"), RiverServer.name("new"))
        let fixture = try await Fixture(operators: [old])
        defer { fixture.remove() }
        let oldRequests = try await server.stats(old)["requests"]
        let version = fixture.store.currentVersion
        let report = try await fixture.book.subscribe(
            SubscribeRequest(address: server.url(new).absoluteString, title: "The new one", folder: "Tech"))
        #expect(report.label.key == fixture.key(new))
        #expect(report.label.title == "The new one")
        #expect(report.label.folder == "Tech")
        #expect(report.lastSuccess != nil)
        #expect(report.items == 1)
        // Published by the store before the answer: a new version with the new source's items.
        #expect(fixture.store.currentVersion > version)
        #expect(fixture.ids(of: fixture.key(new)) == ["\(fixture.key(new)):same"])
        #expect(fixture.ids(of: fixture.key(old)).count == 1)
        #expect(try await server.stats(old)["requests"] == oldRequests)
        // Kept before it was answered.
        let kept = try fixture.table.all()
        #expect(kept.map(\.key) == [fixture.key(old), fixture.key(new)])
        #expect(kept[1].origin == .owner)
        #expect(kept[1].folder == "Tech")
        #expect(fixture.book.folders == ["Tech"])
        // The same feed again, in another spelling of its URL: already subscribed, with its key.
        let again = server.url(new).absoluteString.replacingOccurrences(of: "http://", with: "HTTP://")
        await #expect {
            try await fixture.book.subscribe(SubscribeRequest(address: again))
        } throws: { error in
            let error = error as? SubscriptionError
            return error?.code == .alreadySubscribed && error?.existingKey == fixture.key(new)
        }
    }

    @Test func aRemovedSourcesItemsLeaveAtOnceWithoutRefetchingTheOthers() async throws {
        let server = try RiverServer.running()
        let (kept, gone) = (RiverServer.name("kept"), RiverServer.name("gone"))
        let fixture = try await Fixture(operators: [kept])
        defer { fixture.remove() }
        _ = try await fixture.book.subscribe(SubscribeRequest(address: server.url(gone).absoluteString))
        #expect(fixture.ids(of: fixture.key(gone)).count == 1)
        #expect(await fixture.database.load(keys: [fixture.key(gone)]).count == 1)
        let keptRequests = try await server.stats(kept)["requests"]
        try await fixture.book.unsubscribe(key: fixture.key(gone))
        // Its fetch state leaves the store (and the file) with it; the kept one's stays.
        #expect(await fixture.database.load(keys: [fixture.key(gone)]).isEmpty)
        #expect(await fixture.database.load(keys: [fixture.key(kept)]).count == 1)
        #expect(fixture.ids(of: fixture.key(gone)).isEmpty)
        #expect(fixture.ids(of: fixture.key(kept)).count == 1)
        #expect(try await server.stats(kept)["requests"] == keptRequests)
        #expect(fixture.book.label(forKey: fixture.key(gone)) == nil)
        #expect(try fixture.table.all().map(\.key) == [fixture.key(kept)])
        // The operator's source: renamed and moved here, removed only from the command line.
        await #expect {
            try await fixture.book.unsubscribe(key: fixture.key(kept))
        } throws: { ($0 as? SubscriptionError)?.code == .operatorSource }
        await #expect {
            try await fixture.book.unsubscribe(key: fixture.key(gone))
        } throws: { ($0 as? SubscriptionError)?.code == .notFound }
        let generation = fixture.book.statusGeneration
        let moved = try await fixture.book.update(key: fixture.key(kept), title: "Kept", folder: "Ops")
        #expect(moved.label.title == "Kept")
        #expect(moved.label.folder == "Ops")
        // Pages cached with the old label are stale.
        #expect(fixture.book.statusGeneration > generation)
        #expect(fixture.book.label(forItemID: "\(fixture.key(kept)):same")?.folder == "Ops")
        let cleared = try await fixture.book.update(key: fixture.key(kept), title: "", folder: nil)
        #expect(cleared.label.title == "Feed \(kept)")
        #expect(cleared.label.folder == "Ops")
        #expect(try fixture.table.all().first?.title == nil)
    }

    @Test func changesDuringAScheduledReloadTakeEffectAndAResultOfARemovedSourceIsDropped() async throws {
        let server = try RiverServer.running()
        let (slow, steady, late) = (
            RiverServer.name("slow"), RiverServer.name("steady"), RiverServer.name("late")
        )
        let again = RiverServer.name("again")
        let fixture = try await Fixture(operators: [steady])
        defer { fixture.remove() }
        for name in [slow, again] {
            _ = try await fixture.book.subscribe(SubscribeRequest(address: server.url(name).absoluteString))
        }
        for name in [slow, again] {
            try await server.add(name, guid: "while-changed")
            try await server.set(name, "mode=slow&delay=1.5")
            // Due: a scheduled reload fetches the two slow sources (and only them).
            #expect(RiverTestClock.advanceDue(fixture.river, key: fixture.key(name)))
        }
        let before = try await server.stats(slow)["requests"] ?? 0
        let reload = Task {
            try await ReloadTrigger.$isScheduled.withValue(true) { try await fixture.store.reload() }
        }
        // Until the slow source's request arrived (it then waits 1.5 s to answer).
        for _ in 0..<200 where try await server.stats(slow)["requests"] == before {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await server.stats(slow)["requests"] == before + 1)
        // Meanwhile: one slow source removed, the other removed and added again, another added,
        // the steady one moved.
        fixture.river.remove(key: fixture.key(slow))
        #expect(RiverTestClock.advanceDue(fixture.river, key: fixture.key(again)))
        _ = try fixture.table.remove(key: fixture.key(slow))
        let added = fixture.river.add([SubscriptionRecord(url: server.url(late), origin: .owner)])
        #expect(added.count == 1)
        #expect(
            fixture.river.update(
                SubscriptionRecord(url: server.url(steady), folder: "Moved", origin: .commandLine)))
        _ = try await reload.value
        // The slow source's answer came after it left: dropped, and its items are gone.
        #expect(fixture.ids(of: fixture.key(slow)).isEmpty)
        #expect(fixture.river.hasBeenFetched(key: fixture.key(late)) == false)
        // The answer for the member that left and came back belonged to the one that left: the
        // new one is still to be fetched, and holds what the store held (not the new item).
        #expect(fixture.river.hasBeenFetched(key: fixture.key(again)) == false)
        #expect(fixture.ids(of: fixture.key(again)) == ["\(fixture.key(again)):same"])
        // The next scheduled reload picks the new member up (it has no state: due at once).
        _ = try await ReloadTrigger.$isScheduled.withValue(true) { try await fixture.store.reload() }
        #expect(fixture.river.hasBeenFetched(key: fixture.key(late)))
        #expect(fixture.ids(of: fixture.key(late)) == ["\(fixture.key(late)):same"])
        #expect(fixture.river.hasBeenFetched(key: fixture.key(again)))
        #expect(Set(fixture.ids(of: fixture.key(again))).contains("\(fixture.key(again)):while-changed"))
        #expect(fixture.book.label(forKey: fixture.key(steady))?.folder == "Moved")
        let keys = fixture.book.reports.map(\.label.key)
        #expect(keys == [fixture.key(steady), fixture.key(again), fixture.key(late)])
    }

    @Test func theScheduleWakesForANewMember() async throws {
        let server = try RiverServer.running()
        let name = RiverServer.name("woken")
        // A schedule of an hour over an empty river sleeps an hour; a new member wakes it.
        let fixture = try await Fixture(refreshEvery: .seconds(3600))
        defer { fixture.remove() }
        let service = RefreshService(river: fixture.river, backend: fixture.store)
        service.start()
        try await Task.sleep(for: .milliseconds(100))
        let seen = fixture.river.membershipChanges.count
        fixture.river.add([SubscriptionRecord(url: server.url(name), origin: .owner)])
        #expect(fixture.river.membershipChanges.count == seen + 1)
        // The loop looked again: its next look is at the new member's first slot, so a
        // member that is due at once is fetched by the schedule itself without a reload asked.
        var fetched = false
        for _ in 0..<100 where !fetched {
            try await Task.sleep(for: .milliseconds(50))
            fetched = fixture.river.hasBeenFetched(key: SourceKey.of(server.url(name)))
        }
        await service.stop()
        #expect(fetched)
    }

    @Test func subscriptionsAndFoldersSurviveReopeningAndTheDemoEndsForGood() async throws {
        let server = try RiverServer.running()
        let (first, second) = (RiverServer.name("first"), RiverServer.name("second"))
        let folder: URL
        do {
            let fixture = try await Fixture(demo: true)
            folder = fixture.folder
            #expect(fixture.river.isDemo)
            let demoItems = fixture.store.current.items.count
            #expect(demoItems == 5)
            // The demo brings news on a pull, none on the schedule.
            _ = try await fixture.store.reload()
            #expect(fixture.store.current.items.count > demoItems)
            let afterPull = fixture.store.currentVersion
            _ = try await ReloadTrigger.$isScheduled.withValue(true) { try await fixture.store.reload() }
            #expect(fixture.store.currentVersion == afterPull)
            // The first subscription replaces the demo items at its first fetch.
            let opml = """
                <opml version="2.0"><body>
                <outline text="Reading"><outline text="One" xmlUrl="\(server.url(first))"/>
                <outline text="Two" xmlUrl="\(server.url(second))"/></outline>
                <outline text="One again" xmlUrl="\(server.url(first))"/>
                </body></opml>
                """
            let imported = try await fixture.book.importOPML(Array(opml.utf8))
            #expect(imported == OPMLImport(added: 2, skipped: 1))
            await fixture.book.settle()
            #expect(fixture.river.isDemo == false)
            let ids = fixture.store.current.items.map(\.id)
            #expect(Set(ids) == ["\(fixture.key(first)):same", "\(fixture.key(second)):same"])
            // Everything removed: the river is empty, and a pull does not bring the demo back.
            try await fixture.book.unsubscribe(key: fixture.key(first))
            try await fixture.book.unsubscribe(key: fixture.key(second))
            #expect(fixture.store.current.items.isEmpty)
            _ = try await fixture.store.reload()
            #expect(fixture.store.current.items.isEmpty)
            _ = try await fixture.book.importOPML(Array(opml.utf8))
            await fixture.book.settle()
            #expect(fixture.database.checkpoint() == nil)
        }
        // Reopened: the table's sources with their folders, the snapshot's items, no demo.
        let reopened = try await Fixture(demo: true, folder: folder)
        defer { reopened.remove() }
        #expect(reopened.river.isDemo == false)
        #expect(reopened.book.reports.map(\.label.title) == ["One", "Two"])
        #expect(reopened.book.reports.map(\.label.folder) == ["Reading", "Reading"])
        #expect(reopened.book.folders == ["Reading"])
        #expect(reopened.book.reports.map(\.items) == [1, 1])
        #expect(reopened.store.current.items.count == 2)
    }

    @Test func limitsAreCheckedBeforeAnythingIsFetchedOrKept() async throws {
        let server = try RiverServer.running()
        let name = RiverServer.name("limits")
        let fixture = try await Fixture()
        defer { fixture.remove() }
        let url = server.url(name).absoluteString
        let refused: [(SubscribeRequest, SubscriptionError.Code)] = [
            (SubscribeRequest(address: url, title: String(repeating: "t", count: 201)), .badAddress),
            (SubscribeRequest(address: url, folder: String(repeating: "f", count: 101)), .badAddress),
            (SubscribeRequest(address: url + "?" + String(repeating: "q", count: 2048)), .badAddress),
            (SubscribeRequest(address: "ftp://example.org/feed"), .badAddress),
            (SubscribeRequest(address: "   "), .badAddress),
        ]
        for (request, code) in refused {
            await #expect {
                try await fixture.book.subscribe(request)
            } throws: { ($0 as? SubscriptionError)?.code == code }
        }
        #expect(try await server.stats(name)["requests"] == 0)
        #expect(try fixture.table.all().isEmpty)
        // At the limits exactly: taken.
        let report = try await fixture.book.subscribe(
            SubscribeRequest(
                address: url, title: String(repeating: "t", count: 200),
                folder: String(repeating: "f", count: 100)))
        #expect(report.label.title.count == 200)
        // 500 sources: the 501st is refused, by the API and by an import (counted as skipped).
        let many = (0..<499).map {
            SubscriptionRecord(url: URL(string: "http://127.0.0.1:9/\($0).xml")!, origin: .owner)
        }
        fixture.river.add(try fixture.table.add(many))
        await #expect {
            try await fixture.book.subscribe(
                SubscribeRequest(address: server.url(RiverServer.name("x")).absoluteString))
        } throws: { ($0 as? SubscriptionError)?.code == .tooMany }
        let opml = "<opml><body><outline xmlUrl=\"http://127.0.0.1:9/extra.xml\"/></body></opml>"
        let imported = try await fixture.book.importOPML(Array(opml.utf8))
        #expect(imported.added == 0)
        #expect(imported.skipped == 1)
        #expect(imported.problems == ["1 beyond the limit of 500 feeds"])
        await #expect {
            try await fixture.book.importOPML(Array("<html><body>not a list</body></html>".utf8))
        } throws: { ($0 as? SubscriptionError)?.code == .badOPML }
        await #expect {
            try await fixture.book.importOPML([UInt8](repeating: 32, count: (1 << 20) + 1))
        } throws: { ($0 as? SubscriptionError)?.code == .badOPML }
    }

    @Test(arguments: [
        ("example.com", "https://example.com/"),
        ("  example.com/blog  ", "https://example.com/blog"),
        ("HTTP://Example.com", "HTTP://Example.com/"),
        ("https://example.com:8443/feed.xml?x=1", "https://example.com:8443/feed.xml?x=1"),
    ])
    func aBareAddressMeansHTTPS(_ pasted: String, _ expected: String) throws {
        #expect(try SubscriptionAddress.normalize(pasted).absoluteString == expected)
    }

    @Test(arguments: [
        "javascript:alert(1)", "file:///etc/passwd", "mailto:a@example.com", "https://", "a b.com",
    ])
    func whatIsNotAWebAddressIsRefused(_ pasted: String) {
        #expect(throws: SubscriptionError.self) { try SubscriptionAddress.normalize(pasted) }
    }
}

/// Moving a river's member to "due now" without waiting: its state is dropped as a new
/// member's is (no next fetch: the schedule takes it at once).
enum RiverTestClock {
    static func advanceDue(_ river: River, key: String) -> Bool {
        guard let record = river.record(forKey: key) else { return false }
        river.remove(key: key)
        return river.add([record]).count == 1
    }
}

/// The owner's feeds are fetched under the river's address policy; the operator's are not.
@Suite("The owner's feeds under the address policy")
struct OwnerPolicyTests {
    @Test func anOwnersFeedOnLoopbackIsRefusedBeforeAnyRequestAndTheOperatorsIsFetched() async throws {
        let server = try RiverServer.running()
        let (operators, owners) = (RiverServer.name("operators"), RiverServer.name("owners"))
        let river = River(
            records: [
                SubscriptionRecord(url: server.url(operators), origin: .commandLine),
                SubscriptionRecord(url: server.url(owners), origin: .owner),
            ], limits: FetchLimits(totalTimeout: 5, userAgent: "pullrefresh/test"), ownerPolicy: .publicOnly)
        let items = try await river.fetch(current: [])
        #expect(items.map(\.id) == ["\(SourceKey.of(server.url(operators))):same"])
        let refused = river.reports.first { $0.label.key == SourceKey.of(server.url(owners)) }
        #expect(refused?.lastError != nil)
        #expect(try await server.stats(owners)["requests"] == 0)
        #expect(try await server.stats(operators)["requests"] == 1)
    }
}
