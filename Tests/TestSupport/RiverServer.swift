public import Foundation

/// `Tests/Fixtures/Upstreams/river_server.py`: many scriptable feeds on one loopback port, one
/// per test process.
/// Each test names its own feeds (a fresh UUID each), so their counts are its own.
public final class RiverServer: Sendable {
    /// The process's server, nil when it could not start.
    public static let shared: RiverServer? = try? RiverServer()

    /// Its port on 127.0.0.1.
    public let port: Int
    private let process: Process
    private let input: Pipe

    private init() throws {
        let (process, input, words) = try UpstreamServer.launch("river_server.py")
        guard words.count == 2, words[0] == "PORT", let port = Int(words[1]) else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// A server of the caller's own (stopped when the test process ends), for counts no other
    /// test may touch: connections, requests held at a gate.
    public static func ownServer() throws -> RiverServer { try RiverServer() }

    /// The server, started on first use.
    public static func running() throws -> RiverServer {
        guard let shared else { throw CocoaError(.executableNotLoadable) }
        return shared
    }

    /// A new feed's name, unique to the caller.
    public static func name(_ hint: String) -> String {
        hint + "-" + UUID().uuidString.prefix(8).lowercased()
    }

    /// The URL of feed `name`.
    public func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/r/\(name).xml")! }

    /// Prepends an item to `name`.
    public func add(_ name: String, guid: String) async throws {
        _ = try await post("/r/\(name)/add?guid=\(guid)")
    }

    /// Replaces the items of `name`, newest first: `(guid, title, seconds since 1970)`; a nil
    /// date puts the item after the newest so far.
    public func put(_ name: String, _ items: [(guid: String, title: String, date: Int?)]) async throws {
        let list = items.map { "\($0.guid):\($0.title):\($0.date.map(String.init) ?? "")" }
        _ = try await post("/r/\(name)/put?items=\(list.joined(separator: ","))")
    }

    /// Changes how `name` answers (see the script's doc: mode, maxage, retry, busy, title, ttl).
    public func set(_ name: String, _ settings: String) async throws {
        _ = try await post("/r/\(name)/set?\(settings)")
    }

    /// `requests`, `ok`, `notModified`, `failed` of `name`.
    public func stats(_ name: String) async throws -> [String: Int] {
        let port = port
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /stats HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try connection.readResponse()
        }
        let all =
            try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String: Int]] ?? [:]
        return all[name] ?? ["requests": 0, "ok": 0, "notModified": 0, "failed": 0, "conditional": 0]
    }

    /// `feedConnections` (connections that carried at least one feed GET), `inFlight` and
    /// `peakInFlight` (feed GETs being answered now, and at most so far).
    public func connectionCounts() async throws -> [String: Int] {
        let port = port
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /connections HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try connection.readResponse()
        }
        guard let counts = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Int]
        else { throw CocoaError(.fileReadCorruptFile) }
        return counts
    }

    /// How many connections carried at least one feed GET.
    public func feedConnections() async throws -> Int {
        try await connectionCounts()["feedConnections"] ?? -1
    }

    private func post(_ path: String) async throws -> RawResponse {
        let port = port
        return try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
            return try connection.readResponse()
        }
    }
}
