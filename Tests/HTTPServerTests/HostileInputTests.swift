import Foundation
import Logging
import TestSupport
import Testing

@testable import HTTPServer

/// Malformed HTTP over raw sockets: every case gets a 4xx or a closed connection, never a crash,
/// and the server answers normally afterwards.
@Suite("Hostile input over raw sockets")
struct HostileInputTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case status(Int)
        case closed

        var description: String {
            switch self {
            case .status(let code): "\(code)"
            case .closed: "closed"
            }
        }

        var isRejection: Bool {
            switch self {
            // 505 HTTP Version Not Supported is the precise answer to an unknown version.
            case .status(let code): (400..<500).contains(code) || code == 505
            case .closed: true
            }
        }
    }

    static let cases: [(String, [UInt8])] = {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        let longValue = String(repeating: "a", count: 100_000)
        let manyHeaders = (0..<5000).map { "X-H\($0): v\r\n" }.joined()
        return [
            ("garbage bytes", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 7919) }),
            ("bad method token", bytes("G(T / HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("missing version", bytes("GET /\r\nHost: x\r\n\r\n")),
            ("bad version", bytes("GET / HTTP/9.9\r\nHost: x\r\n\r\n")),
            ("header without colon", bytes("GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n")),
            ("100 KB header line", bytes("GET / HTTP/1.1\r\nHost: x\r\nX-Long: \(longValue)\r\n\r\n")),
            ("thousands of headers", bytes("GET / HTTP/1.1\r\nHost: x\r\n\(manyHeaders)\r\n")),
            (
                "non-numeric Content-Length",
                bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n")
            ),
            (
                "negative Content-Length",
                bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n")
            ),
            (
                "conflicting Content-Length",
                bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde")
            ),
            (
                "bad chunk size",
                bytes(
                    "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
                )
            ),
            (
                "CL+TE smuggling",
                bytes(
                    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n")
            ),
            ("NUL byte in path", bytes("GET /a\0b HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("encoded NUL in path", bytes("GET /a%00b HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("bad escape in query", bytes("GET /query?x=%zz HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("invalid UTF-8 in path", bytes("GET /%C3%28 HTTP/1.1\r\nHost: x\r\n\r\n")),
            ("missing Host on 1.1", bytes("GET / HTTP/1.1\r\n\r\n")),
            ("absolute URI to elsewhere", bytes("GET http://evil.example/ HTTP/1.1\r\nHost: x\r\n\r\n")),
        ]
    }()

    static func send(_ bytes: [UInt8], port: Int) async throws -> (Outcome, [RawResponse]) {
        try await RawConnection.offPool {
            let connection = try RawConnection(port: port, timeoutSeconds: 10)
            try? connection.send(bytes)
            var responses: [RawResponse] = []
            do {
                responses.append(try connection.readResponse())
                // A smuggled second request would show up as a second response.
                if let extra = try? connection.readResponse() { responses.append(extra) }
            } catch {
                return (.closed, responses)
            }
            return (.status(responses[0].status), responses)
        }
    }

    @Test(arguments: cases.map(\.0))
    func malformedRequestsAreRejectedAndServiceContinues(name: String) async throws {
        let payload = try #require(Self.cases.first { $0.0 == name }?.1)
        var router = Router()
        router.get("/") { _ in .text("ok") }
        router.get("/query") { _ in .text("query") }
        router.post("/echo") { request in Response(body: request.body) }
        router.get("/smuggled") { _ in .text("SMUGGLED") }
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        options.connectionTimeout = 5
        let server = try Server(router: router, options: options, logger: Logger(quiet: true))
        let (outcome, responses) = try await Self.send(payload, port: server.port)
        #expect(outcome.isRejection, "\(name) → \(outcome)")
        #expect(!responses.contains { $0.text == "SMUGGLED" }, "\(name) smuggled a request")
        let after = try await RawConnection.offPool {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(after.status == 200)
        #expect(after.text == "ok")
        await server.shutdown()
    }
}
