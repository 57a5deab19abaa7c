import Foundation
import Logging
import TestSupport
import Testing

@testable import HTTPServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("A real Server on a real port")
struct LiveServerTests {
    /// A session that opens as many connections as a test asks for (the shared one stops at 6
    /// per host, which would serialise the concurrency tests).
    static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 200
        configuration.timeoutIntervalForRequest = 60
        return URLSession(configuration: configuration)
    }

    static func start(
        gate: Gate = Gate(), configure: (inout ServerOptions) -> Void = { _ in }
    ) throws -> Server {
        var router = Router()
        router.get("/") { _ in .text("hello") }
        router.get("/big") { _ in Response(body: [UInt8](repeating: 65, count: 100_000)) }
        router.post("/echo") { request in Response(body: request.body) }
        router.post("/wait") { _ in
            await gate.wait()
            return .text("released")
        }
        router.get("/whoami") { request in .text(request.remoteAddress ?? "unknown") }
        router.get("/prepared") { _ in LiveServerTests.prepared }
        router.get("/header-names") { request in .text(request.headers.map(\.name).joined(separator: ",")) }
        router.get("/query") { request in
            .text(
                request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
                    + " path=\(request.path)")
        }
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        options.maxBodySize = 1024
        configure(&options)
        return try Server(router: router, options: options, logger: Logger(quiet: true))
    }

    /// One prepared response for every request to `/prepared`: its pooled libmicrohttpd
    /// responses carry each borrower's request id (rewritten in place when the length matches).
    static let prepared = Response.text("cached").prepared()

    @Test func pooledResponsesCarryEachRequestsOwnID() async throws {
        let server = try Self.start()
        let port = server.port
        // The third and fifth requests name their own ids (one of another length than the
        // made-up ones, one of the same length); the others get made-up ones.
        let sent = [
            "", "", "X-Request-Id: client-chosen.id_3\r\n", "", "X-Request-Id: client-id-of16-5\r\n", "",
        ]
        let responses = try await RawConnection.exchange(
            port: port, sent.map { "GET /prepared HTTP/1.1\r\nHost: x\r\n\($0)\r\n" })
        #expect(responses.allSatisfy { $0.status == 200 && $0.text == "cached" })
        let ids = responses.map { response in response.headers.filter { $0.0 == "X-Request-Id" }.map(\.1) }
        #expect(ids.allSatisfy { $0.count == 1 })
        #expect(ids[2] == ["client-chosen.id_3"])
        #expect(ids[4] == ["client-id-of16-5"])
        #expect(Set(ids.map { $0.first ?? "" }).count == 6)
        await server.shutdown()
    }

    @Test func headerNamesKeepTheClientsSpelling() async throws {
        let server = try Self.start()
        let port = server.port
        // Common names in their usual spelling, one in another case, and an uncommon one.
        let names = try await RawConnection.exchange(
            port: port,
            [
                "GET /header-names HTTP/1.1\r\nHost: x\r\naccept-encoding: br\r\nAccept: */*\r\n"
                    + "X-Sonderwunsch: 1\r\nUser-Agent: test\r\n\r\n"
            ])[0].text
        #expect(names == "Host,accept-encoding,Accept,X-Sonderwunsch,User-Agent")
        await server.shutdown()
    }

    @Test func bindsAFreePortAndReportsIt() async throws {
        let server = try Self.start()
        #expect(server.port > 0)
        #expect(server.address == "127.0.0.1:\(server.port)")
        await server.shutdown()
    }

    @Test func portInUseIsAClearError() async throws {
        let server = try Self.start()
        #expect(throws: ServerError.self) {
            _ = try Self.start { $0.port = server.port }
        }
        do {
            _ = try Self.start { $0.port = server.port }
        } catch {
            #expect(String(describing: error).contains("Address already in use"))
        }
        await server.shutdown()
    }

    @Test(arguments: ServerOptions.Polling.allCases)
    func keepAliveAnswersTheSecondRequestOnTheSameSocket(polling: ServerOptions.Polling) async throws {
        let server = try Self.start { $0.polling = polling }
        let port = server.port
        let responses = try await RawConnection.exchange(
            port: port, ["GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET /query?a=1 HTTP/1.1\r\nHost: x\r\n\r\n"])
        let (first, second) = (responses[0], responses[1])
        #expect(first.status == 200)
        #expect(first.text == "hello")
        #expect(first.header("Connection")?.lowercased() != "close")
        #expect(second.status == 200)
        #expect(second.text == "a=1 path=/query")
        await server.shutdown()
    }

    @Test func handlersSeeTheClientAddress() async throws {
        let server = try Self.start()
        let port = server.port
        let (local, other) = try await RawConnection.offPool {
            let first = try RawConnection(port: port)
            try first.send("GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n")
            let second = try RawConnection(port: port, source: "127.0.0.2")
            try second.send("GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n")
            return (try first.readResponse().text, try second.readResponse().text)
        }
        #expect(local == "127.0.0.1")
        #expect(other == "127.0.0.2")
        await server.shutdown()
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let server = try Self.start()
        let port = server.port
        let responses = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send(
                "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /query?n=2 HTTP/1.1\r\nHost: x\r\n\r\n")
            return [try connection.readResponse(), try connection.readResponse()]
        }
        #expect(responses.map(\.text) == ["hello", "n=2 path=/query"])
        await server.shutdown()
    }

    @Test func hundredConcurrentGetsAreAllAnswered() async throws {
        let server = try Self.start()
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        let session = Self.session()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    let (data, response) = try await session.data(from: url)
                    #expect(String(decoding: data, as: UTF8.self) == "hello")
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 100)
        #expect(statuses.allSatisfy { $0 == 200 })
        await server.shutdown()
    }

    @Test func bodyWithinTheLimitIsCollectedAcrossCalls() async throws {
        let server = try Self.start()
        let session = Self.session()
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/echo")!)
        request.httpMethod = "POST"
        let payload = Data((0..<1000).map { UInt8($0 % 251) })
        request.httpBody = payload
        let (data, response) = try await session.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(data == payload)
        await server.shutdown()
    }

    @Test func declaredBodyOverTheLimitIs413() async throws {
        let server = try Self.start()
        let port = server.port
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
            try? connection.send([UInt8](repeating: 120, count: 5000))
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        await server.shutdown()
    }

    @Test func chunkedBodyOverTheLimitIs413() async throws {
        let server = try Self.start()
        let port = server.port
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = String(repeating: "y", count: 600)
            try? connection.send("258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n258\r\n\(chunk)\r\n0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 413)
        await server.shutdown()
    }

    @Test func unknownPathIs404AndWrongMethodIs405() async throws {
        let server = try Self.start()
        let port = server.port
        let responses = try await RawConnection.exchange(
            port: port,
            [
                "GET /missing HTTP/1.1\r\nHost: x\r\n\r\n",
                "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            ])
        let (missing, wrong) = (responses[0], responses[1])
        #expect(missing.status == 404)
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        await server.shutdown()
    }

    @Test func headHasHeadersButNoBody() async throws {
        let server = try Self.start()
        let port = server.port
        let (head, next, leftover) = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try connection.readResponse(head: true)
            // If a body had been sent, it would be parsed as the next response and fail.
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            let next = try connection.readResponse()
            return (head, next, connection.leftover)
        }
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "100000")
        #expect(head.body.isEmpty)
        #expect(next.text == "hello")
        #expect(leftover.isEmpty)
        await server.shutdown()
    }

    /// The default 16 KiB of connection memory still fits a browser with several KiB of cookies.
    @Test func largeRealisticHeadersFitTheDefaultConnectionMemory() async throws {
        let server = try Self.start { $0.connectionMemoryLimit = ServerOptions().connectionMemoryLimit }
        let port = server.port
        let cookie = "session=" + String(repeating: "c", count: 6000)
        let agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15"
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send(
                "GET / HTTP/1.1\r\nHost: x\r\nUser-Agent: \(agent)\r\nAccept-Language: tr-TR,tr;q=0.9\r\n"
                    + "Cookie: \(cookie)\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 200)
        await server.shutdown()
    }

    @Test func badPercentEscapesAre400() async throws {
        let server = try Self.start()
        let port = server.port
        let response = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 400)
        await server.shutdown()
    }

    @Test func pendingAsyncHandlersDoNotBlockOtherRequests() async throws {
        let gate = Gate()
        let server = try Self.start(gate: gate)
        let base = "http://127.0.0.1:\(server.port)"
        let session = Self.session()
        var waitRequest = URLRequest(url: URL(string: base + "/wait")!)
        waitRequest.httpMethod = "POST"
        waitRequest.timeoutInterval = 60
        let request = waitRequest
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    let (data, _) = try await session.data(for: request)
                    return String(decoding: data, as: UTF8.self)
                }
            }
            #expect(await gate.waitForWaiters(50))
            #expect(server.pendingRequests == 50)
            // All 50 are parked; a GET must still be answered.
            let (data, _) = try await session.data(from: URL(string: base + "/")!)
            #expect(String(decoding: data, as: UTF8.self) == "hello")
            #expect(server.pendingRequests == 50)
            await gate.open()
            var bodies: [String] = []
            for try await body in group { bodies.append(body) }
            #expect(bodies.count == 50)
            #expect(bodies.allSatisfy { $0 == "released" })
        }
        await server.shutdown()
    }

    @Test func pendingBeyondTheBoundIs503WithRetryAfter() async throws {
        let gate = Gate()
        let server = try Self.start(gate: gate) { $0.maxPendingRequests = 2 }
        let port = server.port
        let holders = try (0..<2).map { _ in try RawConnection(port: port) }
        for holder in holders {
            try holder.send("POST /wait HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        }
        #expect(await gate.waitForWaiters(2))
        let refused = try await RawConnection.offPool {
            let connection = try RawConnection(port: port)
            try connection.send("POST /wait HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        await gate.open()
        for holder in holders {
            let response = try await RawConnection.offPool { try holder.readResponse() }
            #expect(response.status == 200)
        }
        await server.shutdown()
    }

    @Test func shutdownLetsPendingRequestsFinish() async throws {
        let gate = Gate()
        let server = try Self.start(gate: gate)
        let port = server.port
        let connections = try (0..<5).map { _ in try RawConnection(port: port) }
        for connection in connections {
            try connection.send("POST /wait HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        }
        #expect(await gate.waitForWaiters(5))
        async let stopped: Void = server.shutdown()
        // Shutdown is now waiting on the gate; release it and every client gets its answer.
        try await Task.sleep(for: .milliseconds(50))
        await gate.open()
        for connection in connections {
            let response = try await RawConnection.offPool { try connection.readResponse() }
            #expect(response.status == 200)
            #expect(response.text == "released")
        }
        await stopped
        #expect(throws: RawError.self) { _ = try RawConnection(port: port) }
    }

    @Test func shutdownAnswers503AfterTheGracePeriod() async throws {
        let gate = Gate()
        let server = try Self.start(gate: gate) { $0.shutdownGracePeriod = .milliseconds(100) }
        let port = server.port
        let connection = try RawConnection(port: port)
        try connection.send("POST /wait HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(await gate.waitForWaiters(1))
        await server.shutdown()
        let response = try await RawConnection.offPool { try connection.readResponse() }
        #expect(response.status == 503)
        #expect(response.header("Retry-After") != nil)
        await gate.open()
    }
}
