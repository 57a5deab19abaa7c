import Foundation

/// Where Redis is: `redis://[[user]:password@]host[:port][/db]`, e.g. `redis://127.0.0.1:6379/0`
/// or `redis://:secret@cache.internal/2`. `rediss://` (TLS) is refused: hiredis 0.14.1 has no TLS.
public struct RedisURL: Sendable, Equatable, CustomStringConvertible {
    /// Host name or address (IPv6 without brackets).
    public var host: String
    /// TCP port, 6379 by default.
    public var port: Int
    /// ACL user name (Redis 6+), if any.
    public var user: String?
    /// Password for `AUTH`, if any.
    public var password: String?
    /// Database number for `SELECT`.
    public var database: Int

    /// Parses a URL; the error message names what is wrong.
    public init(_ text: String) throws(RedisError) {
        if text.lowercased().hasPrefix("rediss://") {
            throw .badURL(
                "rediss:// (TLS) is not supported: hiredis 0.14.1 has no TLS; use redis:// on a trusted network "
                    + "or a TLS tunnel")
        }
        guard text.lowercased().hasPrefix("redis://") else {
            throw .badURL("Redis URL must look like redis://[:password@]host[:port][/db], got '\(text)'")
        }
        var rest = Substring(text.dropFirst("redis://".count))
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard let number = Int(path), (0...1_000_000).contains(number) else {
                    throw .badURL("Redis URL database must be a non-negative integer, got '\(path)'")
                }
                database = number
            }
        }
        var user: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            user = name.isEmpty ? nil : name
            if parts.count == 2 {
                password = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            } else if !name.isEmpty {
                // `redis://secret@host`: a lone credential is the password, as redis-cli reads it.
                password = name
                user = nil
            }
        }
        var host = String(rest)
        var port = 6379
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw .badURL("Redis URL has an unclosed '['") }
            let after = host[host.index(after: close)...]
            let inside = String(host[host.index(after: host.startIndex)..<close])
            if after.hasPrefix(":") {
                port = try Self.port(String(after.dropFirst()))
            } else if !after.isEmpty {
                throw .badURL("Redis URL has text after ']': '\(after)'")
            }
            host = inside
        } else if let colon = host.lastIndex(of: ":") {
            port = try Self.port(String(host[host.index(after: colon)...]))
            host = String(host[..<colon])
        }
        guard !host.isEmpty else { throw .badURL("Redis URL needs a host, got '\(text)'") }
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
    }

    private static func port(_ text: String) throws(RedisError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw .badURL("Redis URL port must be an integer from 1 to 65535, got '\(text)'")
        }
        return port
    }

    /// The URL with the password replaced by `***`, for logs and errors.
    public var description: String {
        let credentials =
            password == nil ? (user.map { "\($0)@" } ?? "") : "\(user ?? ""):***@"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "redis://\(credentials)\(shownHost):\(port)/\(database)"
    }
}
