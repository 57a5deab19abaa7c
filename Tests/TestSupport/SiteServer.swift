public import Foundation

/// `Tests/Fixtures/Upstreams/site_server.py` serving one test's pages on 127.0.0.1, 127.0.0.2
/// and ::1 (one port), so a test can reach the same site through every loopback spelling and
/// count what it was asked. One per test (its probe paths are its own); stopped when released.
public final class SiteServer: Sendable {
    /// One page of the site.
    public struct Page: Sendable, Encodable {
        /// The status.
        public var status: Int
        /// `Content-Type`, nil for none.
        public var type: String?
        /// The body; `{port}` is replaced by the site's port.
        public var body: String
        /// More headers (`Location`), `{port}` replaced too.
        public var headers: [String: String]
        /// Milliseconds the site waits before answering.
        public var delayMilliseconds: Int

        /// Creates a page.
        public init(
            status: Int = 200, type: String?, body: String, headers: [String: String] = [:],
            delayMilliseconds: Int = 0
        ) {
            self.status = status
            self.type = type
            self.body = body
            self.headers = headers
            self.delayMilliseconds = delayMilliseconds
        }

        /// A redirect to `location`.
        public static func redirect(to location: String, status: Int = 302) -> Page {
            Page(status: status, type: "text/plain", body: "", headers: ["Location": location])
        }

        enum CodingKeys: String, CodingKey {
            case status, type, body, headers
            case delayMilliseconds = "delay_ms"
        }
    }

    /// The port on every address.
    public let port: Int
    private let process: Process
    private let input: Pipe
    private let specification: URL

    /// Starts a site serving `pages` (path, with its query when it has one → page), off
    /// Swift's pool.
    public static func start(_ pages: [String: Page]) async throws -> SiteServer {
        let specification = FileManager.default.temporaryDirectory
            .appendingPathComponent("site-\(UUID().uuidString).json")
        try JSONEncoder().encode(pages).write(to: specification)
        return try await RawConnection.offPool { try SiteServer(specification: specification) }
    }

    private init(specification: URL) throws {
        let (process, input, words) = try UpstreamServer.launch(
            "site_server.py", arguments: [specification.path])
        guard words.count == 2, words[0] == "PORT", let port = Int(words[1]) else {
            process.terminate()
            throw CocoaError(.executableNotLoadable)
        }
        self.port = port
        self.process = process
        self.input = input
        self.specification = specification
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.terminate()
        try? FileManager.default.removeItem(at: specification)
    }

    /// `http://<host>:<port><path>`; `host` may be any loopback spelling (`127.1`,
    /// `2130706433`, `[::1]`, `localhost`, …).
    public func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "http://\(host):\(port)\(path)")!
    }

    /// How many requests the site has answered in all, and for each path (with its query).
    public func requests() async throws -> (total: Int, paths: [String: Int]) {
        let stats = url("/_stats")
        let data = try await RawConnection.offPool { try Data(contentsOf: stats) }
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return (object["total"] as? Int ?? -1, object["paths"] as? [String: Int] ?? [:])
    }
}
