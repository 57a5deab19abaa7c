import Foundation

/// A throwaway `redis-server --save '' --appendonly no` on a free 127.0.0.1 port, stopped by its
/// own PID (never by name: other people's Redis servers may be running).
public final class RedisServer: @unchecked Sendable {
    /// The port it listens on (127.0.0.1).
    public let port: Int
    private let directory: URL
    private var process: Process?

    /// Starts a server on a free port with a data folder of its own.
    public init() throws {
        port = try Self.freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "redis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `redis://127.0.0.1:<port>/0`.
    public var url: String { "redis://127.0.0.1:\(port)/0" }

    /// Starts (or restarts) the process and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
            "--dir", directory.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if (try? RawConnection(port: port, timeoutSeconds: 1)) != nil { return }
            usleep(10_000)
        }
        stop()
        throw RawError.io("redis-server did not start on port \(port)")
    }

    /// Kills the process (by its PID) and waits for it.
    public func stop() {
        guard let process, process.isRunning else { return }
        // SIGKILL: nothing is persisted, and a child spawned from a test thread may inherit a
        // mask that blocks SIGTERM (seen here: the server kept running).
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw RawError.io("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
