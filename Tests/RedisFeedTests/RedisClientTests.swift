import Foundation
import Testing

@testable import RedisFeed

@Suite("Redis client, codec and channel messages")
final class RedisClientTests {
    /// Stopped by its deinit when the test's suite instance goes away.
    let server: RedisServer

    init() throws {
        server = try RedisServer()
    }

    @Test func commandsAreBinarySafeAndErrorsAreReplies() async throws {
        let client = RedisClient(configuration: try StoreFixtures.configuration(server))
        defer { client.close() }
        let value: [UInt8] = [0, 13, 10, 255, 36, 42]
        #expect(try await client.send([Array("SET".utf8), Array("k".utf8), value]) == .status("OK"))
        #expect(try await client.send(["GET", "k"]) == .string(value))
        #expect(try await client.send(["GET", "missing"]) == .null)
        #expect(try await client.send(["INCR", "n"]) == .integer(1))
        guard case .error(let message) = try await client.send(["INCR", "k"]) else {
            Issue.record("INCR on a binary string must be an error reply")
            return
        }
        #expect(message.contains("not an integer"))
        #expect(try await client.send(["RPUSH", "l", "a", "b"]) == .integer(2))
        #expect(try await client.send(["LRANGE", "l", "0", "-1"]) == .array([.string([97]), .string([98])]))
    }

    @Test func aRestartedServerIsReconnectedAndScriptsReloaded() async throws {
        let client = RedisClient(configuration: try StoreFixtures.configuration(server))
        defer { client.close() }
        let script = RedisScript("return tonumber(ARGV[1]) + 1")
        #expect(try await script.run(on: client, keys: [], arguments: [Array("41".utf8)]) == .integer(42))
        server.stop()
        try server.start()
        // The idle connection was closed by the restart and the script cache is empty: both heal.
        #expect(try await script.run(on: client, keys: [], arguments: [Array("1".utf8)]) == .integer(2))
        #expect(client.isReachable)
    }

    @Test func wrongPasswordIsAServerError() async throws {
        var configuration = try StoreFixtures.configuration(server)
        configuration.url.password = "nope"
        let client = RedisClient(configuration: configuration)
        defer { client.close() }
        await #expect {
            _ = try await client.send(["PING"])
        } throws: { error in
            guard case .server(let message) = error as? RedisError else { return false }
            return message.contains("AUTH failed")
        }
    }

    @Test func snapshotsRoundTripExactly() throws {
        let snapshot = FeedSnapshotSample.make()
        let bytes = SnapshotCodec.encode(snapshot)
        let decoded = try SnapshotCodec.decode(bytes, epoch: 42)
        #expect(decoded.version == snapshot.version)
        #expect(decoded.epoch == 42)
        #expect(decoded.entries == snapshot.entries)
        #expect(decoded.updatedAt == snapshot.updatedAt)
        #expect(SnapshotCodec.encode(decoded) == bytes)
    }

    @Test(arguments: [
        "", "[]", "{\"version\":0,\"updatedAt\":0,\"entries\":[]}",
        "{\"version\":2,\"updatedAt\":0,\"entries\":[{\"id\":1,\"title\":\"t\",\"body\":\"\",\"createdAt\":0,\"addedIn\":3}]}",
        "{\"version\":2,\"updatedAt\":0,\"entries\":[{\"id\":-1,\"title\":\"t\",\"body\":\"\",\"createdAt\":0,\"addedIn\":1}]}",
    ])
    func badSnapshotsAreRefused(text: String) {
        #expect(throws: RedisError.self) { try SnapshotCodec.decode(Array(text.utf8), epoch: 1) }
    }

    @Test func channelMessagesParse() {
        #expect(
            ChannelMessage(Array("s7 1764619200123456 {}".utf8))
                == .committed(reload: 7, epoch: 1_764_619_200_123_456, snapshot: Array("{}".utf8)))
        #expect(
            ChannelMessage(ChannelMessage.unchanged(reload: 3, version: 9))
                == .unchanged(reload: 3, version: 9))
        #expect(
            ChannelMessage(ChannelMessage.failed(reload: 2, base: 5, message: "data file x: bad"))
                == .failed(reload: 2, base: 5, message: "data file x: bad"))
        for junk in ["", "s", "sx {}", "s1 {}", "s1 x {}", "s1 -3 {}", "u1 x", "f1 x y", "z1 2"] {
            #expect(ChannelMessage(Array(junk.utf8)) == nil, "\(junk)")
        }
    }
}
