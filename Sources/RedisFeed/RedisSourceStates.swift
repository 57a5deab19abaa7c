public import Feed
public import RedisClient

/// A river's per-source state in one Redis hash (`<prefix>sources`, field = source key), so
/// every instance of a cluster, and a restarted one, carries on with the same validators,
/// back-off and next fetch times. Written by the lease holder after each fetch, before its
/// commit; read at the start of each reload and by each instance's schedule.
///
/// Redis being unreachable reads as "no state" (the reload then fails on the lease anyway) and
/// a lost write costs at most one early, conditional fetch.
public struct RedisSourceStates: SourceStateStore {
    private let client: RedisClient
    private let key: String

    init(client: RedisClient, key: String) {
        self.client = client
        self.key = key
    }

    /// The stored state of each of `keys` that has one (one `HMGET`).
    public func load(keys: [String]) async -> [String: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        let reply: RedisReply
        do {
            reply = try await client.send(
                [Array("HMGET".utf8), Array(key.utf8)] + keys.map { Array($0.utf8) })
        } catch {
            return [:]
        }
        guard case .array(let values) = reply, values.count == keys.count else { return [:] }
        var found: [String: [UInt8]] = [:]
        for (field, value) in zip(keys, values) {
            if case .string(let bytes) = value { found[field] = bytes }
        }
        return found
    }

    /// Stores one source's state (one `HSET`).
    public func save(key field: String, state: [UInt8]) async {
        _ = try? await client.send([Array("HSET".utf8), Array(key.utf8), Array(field.utf8), state])
    }

    /// Forgets one source's state (one `HDEL`).
    public func remove(key field: String) async {
        _ = try? await client.send([Array("HDEL".utf8), Array(key.utf8), Array(field.utf8)])
    }
}

extension RedisSourceStates {
    /// Source state on the Redis of `configuration`, over a connection of its own, and whether
    /// that Redis already holds a feed (`prefix:version`). A restarted or added instance then
    /// skips its startup fetch: it joins the stored snapshot and carries on from the shared
    /// validators, back-off and next fetch times instead of fetching every source again.
    public static func connect(_ configuration: RedisConfiguration) async throws(RedisError) -> (
        states: RedisSourceStates, holdsFeed: Bool
    ) {
        let client = RedisClient(configuration: configuration, name: "redis-sources")
        let reply: RedisReply
        do {
            reply = try await client.send(["GET", configuration.prefix + "version"])
        } catch {
            client.close()
            throw error
        }
        let holdsFeed = if case .string = reply { true } else { false }
        return (RedisSourceStates(client: client, key: configuration.prefix + "sources"), holdsFeed)
    }
}
