import Feed
import Foundation
import RedisFeed
import TestSupport
import Testing

/// One behaviour, two backends: the in-memory store is the reference, the Redis store must
/// match it for a single instance. Each test gets its own redis-server.
@Suite("Store contract (memory and Redis)")
final class BackendContractTests {
    /// Stopped by its deinit when the test's suite instance goes away.
    let server: RedisServer

    init() throws {
        server = try RedisServer()
    }

    @Test(arguments: Backend.allCases)
    func concurrentReloadsShareOneFetch(backend: Backend) async throws {
        let source = GatedSource(gated: true)
        let store = try await backend.store(initial: [StoreFixtures.item(1)], source: source, server: server)
        try await withThrowingTaskGroup(of: ReloadOutcome.self) { group in
            for _ in 0..<50 {
                group.addTask { try await store.reload() }
            }
            await source.waitUntilFetching()
            // Reads do not wait for the pending reload.
            #expect(store.current.version == 1)
            #expect(store.currentVersion == 1)
            #expect(store.current.items.map(\.id) == ["1"])
            source.open()
            var outcomes: [ReloadOutcome] = []
            for try await outcome in group { outcomes.append(outcome) }
            #expect(outcomes.count == 50)
            #expect(Set(outcomes.map(\.snapshot.version)) == [2])
            #expect(Set(outcomes.map(\.reloadNumber)).count == 1)
        }
        #expect(source.fetchCount == 1)
        #expect(store.current.items.map(\.id) == ["2", "1"])
    }

    @Test(arguments: Backend.allCases)
    func itemsRememberTheVersionTheyArrivedIn(backend: Backend) async throws {
        let store = try await backend.store(
            initial: [StoreFixtures.item(1)], source: GatedSource(), server: server)
        _ = try await store.reload()
        let outcome = try await store.reload()
        #expect(outcome.snapshot.version == 3)
        #expect(store.current.entries.map(\.addedIn) == [3, 2, 1])
        #expect(store.current.added(since: 1).map(\.id) == ["3", "2"])
    }

    @Test(arguments: Backend.allCases)
    func aFailedReloadKeepsTheLastGoodDataAndSaysWhy(backend: Backend) async throws {
        let source = GatedSource()
        let store = try await backend.store(initial: [StoreFixtures.item(1)], source: source, server: server)
        _ = try await store.reload()
        let before = store.current
        source.set(failing: true)
        await #expect(throws: FeedError("upstream is down")) { try await store.reload() }
        #expect(store.current.version == before.version)
        #expect(store.current.items == before.items)
        source.set(failing: false)
        #expect(try await store.reload().snapshot.version == before.version + 1)
    }

    @Test(arguments: Backend.allCases)
    func unchangedDataKeepsTheVersion(backend: Backend) async throws {
        let source = GatedSource()
        let store = try await backend.store(initial: [StoreFixtures.item(1)], source: source, server: server)
        source.set(unchanged: true)
        let outcome = try await store.reload()
        #expect(outcome.snapshot.version == 1)
        #expect(store.current.version == 1)
        source.set(unchanged: false)
        #expect(try await store.reload().snapshot.version == 2)
    }

    @Test(arguments: Backend.allCases)
    func newestItemsAreKeptUpToMaxItems(backend: Backend) async throws {
        let initial = (1...5).map { StoreFixtures.item($0) }
        let store = try await backend.store(
            initial: initial, source: GatedSource(), maxItems: 3, server: server)
        #expect(store.current.items.map(\.id) == ["5", "4", "3"])
        _ = try await store.reload()
        #expect(store.current.items.map(\.id) == ["6", "5", "4"])
    }

    @Test(.timeLimit(.minutes(1)), arguments: Backend.allCases)
    func publicationsCarryEveryNewVersionAndNoUnchangedOne(backend: Backend) async throws {
        let source = GatedSource()
        let store = try await backend.store(initial: [StoreFixtures.item(1)], source: source, server: server)
        var published = store.publications().makeAsyncIterator()
        _ = try await store.reload()
        #expect(await published.next()?.version == 2)
        // A reload that changed nothing publishes nothing: the next one heard of is version 3.
        source.set(unchanged: true)
        _ = try await store.reload()
        source.set(unchanged: false)
        let third = try await store.reload()
        let next = await published.next()
        #expect(next?.version == 3)
        #expect(next?.entries == third.snapshot.entries)
    }

    @Test(arguments: Backend.allCases)
    func healthIsOkAndTheCacheTagIsStable(backend: Backend) async throws {
        let store = try await backend.store(
            initial: [StoreFixtures.item(1)], source: GatedSource(), server: server)
        #expect(!store.health.degraded)
        let tag = store.cacheTag
        #expect(!tag.isEmpty)
        _ = try await store.reload()
        #expect(store.cacheTag == tag)
    }
}
