import Feed
import Foundation
import Logging
import RedisClient
import RedisFeed
import TestSupport
import Testing

/// Items, and one way to build either backend, for the contract suite.
enum StoreFixtures {
    static func item(_ id: Int, minute: Int? = nil) -> FeedItem {
        FeedItem(
            id: String(id), title: "Item \(id)", body: "Body <\(id)> & \"quotes\"",
            createdAt: Date(timeIntervalSince1970: 1_780_000_000 + Double((minute ?? id) * 60)))
    }

    /// A configuration for `server` with a prefix of its own, so tests never share keys.
    static func configuration(_ server: RedisServer, lease: Duration = .seconds(5)) throws
        -> RedisConfiguration
    {
        RedisConfiguration(
            url: try RedisURL(server.url), prefix: "test:\(UUID().uuidString):", commandTimeout: .seconds(2),
            lease: lease)
    }

    static func redisStore(
        _ configuration: RedisConfiguration, initial: [FeedItem], source: any FeedSource, maxItems: Int = 50
    ) async throws -> RedisFeedStore {
        try await RedisFeedStore.connect(
            configuration, initial: initial, source: source, delay: .zero, maxItems: maxItems,
            logger: Logger(quiet: true))
    }
}

/// Which store a contract test runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case redis

    var testDescription: String { rawValue }

    /// A fresh store; the Redis one on `server` with a prefix of its own.
    func store(
        initial: [FeedItem], source: any FeedSource, maxItems: Int = 50, server: RedisServer
    ) async throws -> any FeedBackend {
        switch self {
        case .memory:
            return FeedStore(initial: initial, source: source, delay: .zero, maxItems: maxItems)
        case .redis:
            return try await StoreFixtures.redisStore(
                StoreFixtures.configuration(server), initial: initial, source: source, maxItems: maxItems)
        }
    }
}
