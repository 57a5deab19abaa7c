import Foundation
import TestSupport
import Testing

@testable import RedisClient

@Suite("Redis client")
final class RedisClientTests {
    /// Stopped by its deinit when the test's suite instance goes away.
    let server: RedisServer

    init() throws {
        server = try RedisServer()
    }

    /// The server's URL under a key prefix of this test's own.
    func configuration() throws -> RedisConfiguration {
        RedisConfiguration(
            url: try RedisURL(server.url), prefix: "test:\(UUID().uuidString):", commandTimeout: .seconds(2))
    }

    @Test func commandsAreBinarySafeAndErrorsAreReplies() async throws {
        let client = RedisClient(configuration: try configuration())
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
        let client = RedisClient(configuration: try configuration())
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
        var configuration = try configuration()
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
}
