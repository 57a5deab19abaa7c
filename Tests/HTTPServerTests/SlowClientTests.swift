import Foundation
import Logging
import TestSupport
import Testing

@testable import HTTPServer

/// Slow and idle clients: the inactivity timeout drops trickling connections, and a flood of
/// idle connections up to the limit stops nothing once it goes away.
@Suite("Slow clients and connection floods")
struct SlowClientTests {
    static func start(_ configure: (inout ServerOptions) -> Void) throws -> Server {
        var router = Router()
        router.get("/") { _ in .text("ok") }
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        configure(&options)
        return try Server(router: router, options: options, logger: Logger(quiet: true))
    }

    static func get(_ port: Int) async throws -> RawResponse {
        try await RawConnection.offPool {
            let connection = try RawConnection(port: port, timeoutSeconds: 5)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
    }

    /// Whether a new connection gets no answer (refused, or closed without a response).
    static func isTurnedAway(_ port: Int) async throws -> Bool {
        try await RawConnection.offPool { () -> Bool in
            guard let extra = try? RawConnection(port: port, timeoutSeconds: 3) else { return true }
            try? extra.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return (try? extra.readResponse()) == nil
        }
    }

    @Test func tricklingClientsAreDroppedWhileOthersAreServed() async throws {
        let server = try Self.start { $0.connectionTimeout = 1 }
        let port = server.port
        let slow = try (0..<200).map { _ in try RawConnection(port: port, timeoutSeconds: 10) }
        for connection in slow {
            try connection.send("GET / HTTP/1.1\r\nHo")
        }
        // While 200 clients dawdle mid-header, normal requests are answered.
        for _ in 0..<5 {
            #expect(try await Self.get(port).status == 200)
        }
        // One more byte after longer than the timeout: by then each was closed by the server.
        try await Task.sleep(for: .milliseconds(2500))
        let dropped = try await RawConnection.offPool {
            slow.filter { connection in
                try? connection.send("s")
                return connection.readsEOF()
            }.count
        }
        #expect(dropped == 200)
        #expect(try await Self.get(port).status == 200)
        await server.shutdown()
    }

    @Test func idleFloodUpToTheLimitDoesNotStopServiceOnceGone() async throws {
        let server = try Self.start {
            $0.connectionLimit = 40
            $0.perIPConnectionLimit = 0
        }
        let port = server.port
        var idle = try (0..<40).map { _ in try RawConnection(port: port, timeoutSeconds: 3) }
        // Give the server a moment to accept all of them, then one more is turned away.
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await Self.isTurnedAway(port))
        idle.removeAll()
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await Self.get(port).status == 200)
        await server.shutdown()
    }

    @Test func perAddressLimitLeavesOtherAddressesServed() async throws {
        let server = try Self.start { $0.perIPConnectionLimit = 10 }
        let port = server.port
        let hogs = try (0..<10).map { _ in try RawConnection(port: port, timeoutSeconds: 3) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(try await Self.isTurnedAway(port))
        let other = try await RawConnection.offPool {
            let connection = try RawConnection(port: port, timeoutSeconds: 5, source: "127.0.0.2")
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(other.status == 200)
        _ = hogs
        await server.shutdown()
    }
}
