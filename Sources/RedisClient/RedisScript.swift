import Synchronization

/// A Lua script run with `EVALSHA`; after `NOSCRIPT` (Redis restarted: its script cache is
/// volatile) it is loaded again with `SCRIPT LOAD` and retried once.
public final class RedisScript: Sendable {
    /// The script's Lua text.
    public let source: String
    private let sha = Mutex<String?>(nil)

    /// A script to run; nothing is sent to Redis until the first ``run(on:keys:arguments:)``.
    public init(_ source: String) {
        self.source = source
    }

    /// Runs the script with `keys` and `arguments` (loading it first when Redis does not know
    /// it) and returns its reply.
    public func run(on client: RedisClient, keys: [String], arguments: [[UInt8]]) async throws(RedisError)
        -> RedisReply
    {
        let tail = [Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) } + arguments
        if let known = sha.withLock({ $0 }) {
            let reply = try await client.send([Array("EVALSHA".utf8), Array(known.utf8)] + tail)
            guard case .error(let message) = reply, message.hasPrefix("NOSCRIPT") else { return reply }
        }
        let loaded = try await client.send(["SCRIPT", "LOAD", source])
        guard case .string = loaded, let digest = loaded.text else {
            throw .unexpectedReply("SCRIPT LOAD answered \(loaded)")
        }
        sha.withLock { $0 = digest }
        return try await client.send([Array("EVALSHA".utf8), Array(digest.utf8)] + tail)
    }
}
