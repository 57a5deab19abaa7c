public import Foundation

/// `Tests/Fixtures/Upstreams/upstream_server.py` on 127.0.0.1 and a free port, one per test
/// process, stopped when the process exits (it reads its stdin until this process's end closes it).
public final class UpstreamServer: Sendable {
    /// The upstream fixtures (feeds, and the scripts that serve them), shared by the Swift and
    /// Python suites.
    public static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Upstreams")
    /// The process's server, nil when it could not start.
    public static let shared: UpstreamServer? = try? UpstreamServer()

    /// Its port on 127.0.0.1.
    public let port: Int
    /// A port on 127.0.0.1 whose connections never complete (a full, undrained accept queue).
    public let blackholePort: Int
    private let process: Process
    private let input: Pipe

    private init() throws {
        let (process, input, words) = try Self.launch("upstream_server.py")
        guard words.count == 4, words[0] == "PORT", let port = Int(words[1]), let blackhole = Int(words[3])
        else {
            process.terminate()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
        blackholePort = blackhole
        self.process = process
        self.input = input
    }

    /// Starts a fixture script with `arguments` and returns it with its stdin (closing it stops
    /// the script) and the words of the first line it prints.
    public static func launch(_ script: String, arguments: [String] = []) throws -> (
        Process, Pipe, [Substring]
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", fixtures.appendingPathComponent(script).path] + arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.standardError
        try process.run()
        return (process, input, output.firstLine().split(separator: " "))
    }

    /// The server, started on first use.
    public static func running() throws -> UpstreamServer {
        guard let shared else { throw CocoaError(.executableNotLoadable) }
        return shared
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// One request to the fixture server (off the cooperative pool: the socket blocks).
    public func request(_ method: String, _ path: String) async throws -> RawResponse {
        let port = port
        return try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n")
            return try connection.readResponse()
        }
    }

    /// What the server recorded for `path` requested with `?tag=<tag>`.
    public func stats(_ path: String, tag: String) async throws -> [String: Any] {
        let response = try await request("GET", "/stats")
        let all = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
        return all["\(path)#\(tag)"] as? [String: Any] ?? [:]
    }

    /// Appends an entry to `/live.xml`; returns its guid.
    public func addLiveEntry(title: String) async throws -> String {
        try await request("POST", "/live/add?title=\(title)").text
    }
}
