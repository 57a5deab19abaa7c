import Feed
import Foundation
import RedisClient
import TestSupport
import Testing

@testable import RedisFeed

/// The Redis store against a real redis-server: two stores in one process stand in for two
/// instances (the multi-process faults live in Tests/cluster).
@Suite("Redis feed store")
final class RedisFeedStoreTests {
    /// Stopped by its deinit when the test's suite instance goes away.
    let server: RedisServer

    init() throws {
        server = try RedisServer()
    }

    /// Polls `condition` (ordering, not timing: the deadline only bounds a failure).
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    static func outcome(_ body: () async throws(FeedError) -> ReloadOutcome) async -> Result<Int, FeedError> {
        do {
            return .success(try await body().snapshot.version)
        } catch {
            return .failure(error)
        }
    }

    /// What connecting a store with `configuration` throws (nil if it connects).
    static func startupError(_ configuration: RedisConfiguration) async -> RedisError? {
        do {
            let store = try await StoreFixtures.redisStore(
                configuration, initial: [StoreFixtures.item(1)], source: GatedSource())
            store.close()
            return nil
        } catch {
            return error as? RedisError
        }
    }

    @Test func twoStoresAreOneFeedWithOneFetch() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let source = GatedSource(gated: true)
        let first = try await StoreFixtures.redisStore(
            configuration, initial: [StoreFixtures.item(1)], source: source)
        let second = try await StoreFixtures.redisStore(
            configuration, initial: [StoreFixtures.item(99)], source: source)
        // The second joined the feed the first seeded: same items, same tag.
        #expect(second.current.items.map(\.id) == ["1"])
        #expect(second.cacheTag == first.cacheTag)
        async let a = first.reload()
        await source.waitUntilFetching()
        async let b = second.reload()
        // The second store found the lease taken and waits for the first's commit.
        #expect(await eventually { second.waitingForCluster == 1 })
        source.open()
        let (left, right) = try await (a, b)
        #expect(left.snapshot.version == 2)
        #expect(right.snapshot.version == 2)
        #expect(left.reloadNumber == right.reloadNumber)
        #expect(source.fetchCount == 1)
        #expect(await eventually { first.currentVersion == 2 && second.currentVersion == 2 })
        #expect(SnapshotCodec.encode(first.current) == SnapshotCodec.encode(second.current))
        #expect(second.current.entries.map(\.addedIn) == [2, 1])
    }

    @Test func aFailureUpstreamReachesTheWaitingInstance() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let source = GatedSource(gated: true)
        let first = try await StoreFixtures.redisStore(
            configuration, initial: [StoreFixtures.item(1)], source: source)
        let second = try await StoreFixtures.redisStore(configuration, initial: [], source: source)
        source.set(failing: true)
        async let a = Self.outcome { () async throws(FeedError) in try await first.reload() }
        await source.waitUntilFetching()
        async let b = Self.outcome { () async throws(FeedError) in try await second.reload() }
        #expect(await eventually { second.waitingForCluster == 1 })
        source.open()
        let results: [Result<Int, FeedError>] = await [a, b]
        #expect(
            results == [.failure(FeedError("upstream is down")), .failure(FeedError("upstream is down"))])
        #expect(first.current.version == 1)
    }

    @Test func garbageStoredSnapshotFailsStartupClearly() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        _ = try await client.send(["SET", configuration.prefix + "version", "3"])
        _ = try await client.send(["SET", configuration.prefix + "epoch", "1764619200000000"])
        _ = try await client.send(["SET", configuration.prefix + "snap:3", "{not json"])
        let error = await Self.startupError(configuration)
        guard case .unexpectedReply(let message) = error else {
            Issue.record("expected an unexpected-reply error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("stored snapshot is not valid JSON"))
    }

    @Test func garbageOnTheChannelIsIgnoredAndServingGoesOn() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let store = try await StoreFixtures.redisStore(
            configuration, initial: [StoreFixtures.item(1)], source: GatedSource())
        #expect(await eventually { !store.health.degraded })
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        for junk in [
            "", "x", "s1 {bad", "s1 7 {bad", "s0 {\"version\":0,\"updatedAt\":0,\"entries\":[]}",
            "s0 9 {\"version\":0,\"updatedAt\":0,\"entries\":[]}", "u1 nope", "f1",
        ] {
            _ = try await client.send(["PUBLISH", configuration.prefix + "versions", junk])
        }
        #expect(store.current.version == 1)
        #expect(try await store.reload().snapshot.version == 2)
        #expect(!store.health.degraded)
    }

    @Test func aRemovedSourcesStateLeavesTheSharedHash() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let (states, _) = try await RedisSourceStates.connect(configuration)
        // Another instance, over a connection of its own, reads what the first one changed.
        let (other, _) = try await RedisSourceStates.connect(configuration)
        await states.save(key: "aaaaaaaaaaaa", state: [1, 2])
        await states.save(key: "bbbbbbbbbbbb", state: [3])
        #expect(await other.load(keys: ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]).count == 2)
        await states.remove(key: "aaaaaaaaaaaa")
        #expect(await other.load(keys: ["aaaaaaaaaaaa", "bbbbbbbbbbbb"]) == ["bbbbbbbbbbbb": [3]])
    }

    @Test func unreachableAtConnectThrowsAndNamesTheServer() async throws {
        var configuration = try StoreFixtures.configuration(server)
        server.stop()
        configuration.connectTimeout = .milliseconds(500)
        let error = await Self.startupError(configuration)
        guard case .unreachable(let message) = error else {
            Issue.record("expected an unreachable error, got \(String(describing: error))")
            return
        }
        #expect(message.contains("127.0.0.1:\(server.port)"))
    }

    @Test func redisGoneMeansUnavailableThenRecovers() async throws {
        let configuration = try StoreFixtures.configuration(server)
        let store = try await StoreFixtures.redisStore(
            configuration, initial: [StoreFixtures.item(1)], source: GatedSource())
        _ = try await store.reload()
        server.stop()
        await #expect {
            try await store.reload()
        } throws: { error in
            (error as? FeedError)?.retryAfter != nil
        }
        #expect(store.current.version == 2)
        #expect(await eventually { store.health.degraded })
        #expect(store.health.details == [.init("redis", "unreachable")])
        try server.start()
        // Redis came back empty: the store re-seeds version 2 and builds on it.
        #expect(await eventually { !store.health.degraded })
        #expect(try await store.reload().snapshot.version == 3)
    }
}
