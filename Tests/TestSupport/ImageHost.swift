public import Foundation

/// `Tests/images/image_host.py` serving ``ImageFixtures`` on 127.0.0.1 and 127.0.0.2 (one port),
/// one per test process; it stops when this process ends (it reads stdin until then).
public final class ImageHost: Sendable {
    /// The port on both addresses.
    public let port: Int
    private let process: Process
    private let input: Pipe

    /// The host, started on first use, or why it could not start.
    public static let shared: Result<ImageHost, ImageFixtureError> = Result {
        try ImageHost(folder: ImageFixtures.folder.get())
    }.mapError { ImageFixtureError(message: "image host: \($0)") }

    private init(folder: URL) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("images/image_host.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, folder.path]
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        let words = output.firstLine().split(separator: " ")
        guard words.count == 2, words[0] == "PORT", let port = Int(words[1]) else {
            process.terminate()
            throw ImageFixtureError(message: "image_host.py did not print its port")
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// The shared host, started (on first use) on a thread of its own, off Swift's pool.
    public static func running() async throws -> ImageHost {
        try await RawConnection.offPool { try shared.get() }
    }

    /// `http://<address>:<port><path>`.
    public func url(_ path: String, address: String = "127.0.0.1") -> URL {
        URL(string: "http://\(address):\(port)\(path)")!
    }

    /// How many requests the host has had for `path` (with its query, as sent), read from `/stats`
    /// off Swift's pool.
    public func requests(for path: String) async throws -> Int {
        let stats = url("/stats")
        let data = try await RawConnection.offPool { try Data(contentsOf: stats) }
        let counts = try JSONSerialization.jsonObject(with: data) as? [String: Int] ?? [:]
        return counts[path] ?? 0
    }
}

extension Pipe {
    /// The first line a child process writes to this pipe (without the newline), read byte by
    /// byte so nothing after it is consumed; empty if the pipe closes first.
    public func firstLine() -> String {
        var line = Data()
        while true {
            let byte = fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
