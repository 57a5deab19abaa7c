import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// A version the tests move on by hand.
final class TestContent: VersionedContent {
    let version = Atomic<Int>(1)
    var currentVersion: Int { version.load(ordering: .acquiring) }
}

/// Counts the requests each handler saw, so a test can tell a stored answer from a routed one.
final class HandlerCalls: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func record(_ path: String) {
        counts.withLock { $0[path, default: 0] += 1 }
    }

    subscript(path: String) -> Int { counts.withLock { $0[path, default: 0] } }
}

@Suite("Stored responses answer repeated requests without routing")
struct StoredResponsesTests {
    struct Fixture {
        let server: Server
        let content: TestContent
        let calls: HandlerCalls
    }

    /// Routes whose answers are reusable (`/page` varies on `Accept-Language`, `/any` on `*`)
    /// and one that is not (`/plain`); each body names the version and the request's language.
    static func start(capacity: Int = 64, threads: Int = 1) throws -> Fixture {
        let content = TestContent()
        let calls = HandlerCalls()
        var router = Router()
        @Sendable func answer(_ request: Request, vary: String) -> Response {
            calls.record(request.path)
            let version = content.currentVersion
            let language = request.headers["Accept-Language"] ?? "none"
            let query = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            if request.headers["If-None-Match"] == "\"v\(version)\"" {
                return Response(status: 304, headers: ["Vary": vary]).prepared().reusable(
                    while: content, isAt: version)
            }
            return Response(
                headers: ["Content-Type": "text/plain", "Vary": vary],
                body: Array("v\(version) \(language) \(query)".utf8)
            ).prepared().reusable(while: content, isAt: version)
        }
        router.get("/page") { request in answer(request, vary: "Accept-Language") }
        router.get("/any") { request in answer(request, vary: "*") }
        router.get("/plain") { request in
            calls.record(request.path)
            return Response.text("plain").prepared()
        }
        router.post("/page") { request in
            calls.record("POST")
            return .text("posted")
        }
        var options = ServerOptions()
        options.port = 0
        options.threads = threads
        options.storedResponses = capacity
        let server = try Server(router: router, options: options, logger: Logger(quiet: true))
        return Fixture(server: server, content: content, calls: calls)
    }

    /// Sends `requests` over one connection to a new server: their bodies must be `texts`,
    /// and `/page`'s handler must have seen `routed` of them.
    static func expect(
        _ requests: [String], answer texts: [String], routed: Int, capacity: Int = 64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let fixture = try start(capacity: capacity)
        let responses = try await RawConnection.exchange(port: fixture.server.port, requests)
        #expect(responses.map(\.text) == texts, sourceLocation: sourceLocation)
        #expect(fixture.calls["/page"] == routed, sourceLocation: sourceLocation)
        await fixture.server.shutdown()
    }

    /// A complete bodyless `GET` with `Host` and the `extra` header lines.
    static func get(_ target: String, _ extra: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n"
    }

    @Test func aRepeatedRequestIsAnsweredWithoutTheHandler() async throws {
        let fixture = try Self.start()
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            Array(repeating: Self.get("/page", "Accept-Language: de\r\n"), count: 4))
        #expect(responses.map(\.text) == Array(repeating: "v1 de ", count: 4))
        #expect(fixture.calls["/page"] == 1)
        // Byte for byte the routed answer, but for the id and the date.
        func stable(_ response: RawResponse) -> [String] {
            response.headers.filter { !["X-Request-Id", "Date"].contains($0.0) }.map { "\($0.0): \($0.1)" }
        }
        #expect(responses.dropFirst().allSatisfy { stable($0) == stable(responses[0]) })
        let ids = responses.compactMap { $0.headers.first { $0.0 == "X-Request-Id" }?.1 }
        #expect(Set(ids).count == 4)
        await fixture.server.shutdown()
    }

    @Test func aStoredAnswerCarriesTheClientsRequestID() async throws {
        let fixture = try Self.start()
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            [
                Self.get("/page"), Self.get("/page", "X-Request-Id: trace-7.a_b\r\n"),
                Self.get("/page", "x-request-id: not ok!\r\n"),
            ])
        #expect(fixture.calls["/page"] == 1)
        let ids = responses.map { $0.headers.first { $0.0 == "X-Request-Id" }?.1 ?? "" }
        #expect(ids[1] == "trace-7.a_b")
        // Refused (a space and `!`): a made-up one instead.
        #expect(ids[2].count == 16 && ids[2] != ids[0])
        await fixture.server.shutdown()
    }

    @Test func otherValuesOfVaryFieldsAreRoutedAndStoredApart() async throws {
        try await Self.expect(
            [
                Self.get("/page", "Accept-Language: de\r\n"), Self.get("/page", "Accept-Language: fr\r\n"),
                Self.get("/page"), Self.get("/page", "accept-language: de\r\n"),
                Self.get("/page", "Accept-Language: fr\r\n"), Self.get("/page"),
                // Empty is a value of its own, not the same as absent.
                Self.get("/page", "Accept-Language:\r\n"),
            ],
            answer: ["v1 de ", "v1 fr ", "v1 none ", "v1 de ", "v1 fr ", "v1 none ", "v1  "], routed: 4)
    }

    @Test func aNewVersionIsRoutedAgain() async throws {
        let fixture = try Self.start()
        let port = fixture.server.port
        let before = try await RawConnection.exchange(port: port, [Self.get("/page"), Self.get("/page")])
        fixture.content.version.store(2, ordering: .releasing)
        let after = try await RawConnection.exchange(port: port, [Self.get("/page"), Self.get("/page")])
        #expect((before + after).map(\.text) == ["v1 none ", "v1 none ", "v2 none ", "v2 none "])
        #expect(fixture.calls["/page"] == 2)
        await fixture.server.shutdown()
    }

    /// Connections on two server threads ask at once, phase after phase, each phase after the
    /// version moved: every answer is the current version's, stored or routed.
    @Test func concurrentRequestsNeverGetAnOlderVersion() async throws {
        let fixture = try Self.start(threads: 2)
        let port = fixture.server.port
        let connections = try await RawConnection.offPool {
            try (0..<4).map { _ in try RawConnection(port: port) }
        }
        for version in 2...21 {
            fixture.content.version.store(version, ordering: .releasing)
            let answers = try await withThrowingTaskGroup(of: [String].self) { group in
                for connection in connections {
                    group.addTask {
                        try await RawConnection.offPool {
                            try (0..<5).map { _ in
                                try connection.send(Self.get("/page", "Accept-Language: de\r\n"))
                                return try connection.readResponse().text
                            }
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(answers == Array(repeating: "v\(version) de ", count: 20), "version \(version)")
        }
        // Mostly stored: one routed request per version or a few more (two threads racing).
        #expect(fixture.calls["/page"] < 20 * 20 / 2)
        await fixture.server.shutdown()
    }

    @Test func theQueryIsPartOfTheTarget() async throws {
        // `%31` decodes to the same query, but only the same bytes are the same target.
        try await Self.expect(
            [Self.get("/page?a=1"), Self.get("/page?a=2"), Self.get("/page?a=1"), Self.get("/page?a=%31")],
            answer: ["v1 none a=1", "v1 none a=2", "v1 none a=1", "v1 none a=1"], routed: 3)
    }

    @Test func newValidatorsBodiesRepeatedFieldsAndPostsAreRouted() async throws {
        let fixture = try Self.start()
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            [
                Self.get("/page"),
                Self.get("/page", "If-None-Match: \"x\"\r\n"),
                Self.get("/page", "If-Modified-Since: Tue, 01 Dec 2026 00:00:00 GMT\r\n"),
                Self.get("/page", "Content-Length: 2\r\n") + "ab",
                Self.get("/page", "Accept-Language: de\r\nAccept-Language: fr\r\n"),
                "POST /page HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
            ])
        #expect(responses.map(\.status) == [200, 200, 200, 200, 200, 200])
        #expect(fixture.calls["/page"] == 5)
        #expect(fixture.calls["POST"] == 1)
        await fixture.server.shutdown()
    }

    @Test func aNotModifiedIsStoredForTheSameValidator() async throws {
        let fixture = try Self.start()
        let port = fixture.server.port
        let current = Self.get("/page", "If-None-Match: \"v1\"\r\n")
        let before = try await RawConnection.exchange(
            port: port, [current, current, Self.get("/page"), current])
        fixture.content.version.store(2, ordering: .releasing)
        let after = try await RawConnection.exchange(port: port, [current, current])
        #expect((before + after).map(\.status) == [304, 304, 200, 304, 200, 200])
        // Routed: the first 304, the first 200, and the first request at version 2 (stored again).
        #expect(fixture.calls["/page"] == 3)
        await fixture.server.shutdown()
    }

    @Test func headIsAnsweredFromAStoredGet() async throws {
        let fixture = try Self.start()
        let responses = try await RawConnection.exchange(
            port: fixture.server.port, [Self.get("/page"), "HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n"])
        #expect(responses[1].status == 200 && responses[1].body.isEmpty)
        #expect(responses[1].headers.first { $0.0 == "Content-Length" }?.1 == "8")
        #expect(fixture.calls["/page"] == 1)
        await fixture.server.shutdown()
    }

    @Test func aMissingHostStillGetsItsBadRequest() async throws {
        let fixture = try Self.start()
        let port = fixture.server.port
        // The 400 closes its connection (as every framing error does).
        let refused = try await RawConnection.exchange(
            port: port, [Self.get("/page"), "GET /page HTTP/1.1\r\n\r\n"])
        // HTTP/1.0 needs no Host.
        let old = try await RawConnection.exchange(port: port, ["GET /page HTTP/1.0\r\n\r\n"])
        #expect((refused + old).map(\.status) == [200, 400, 200])
        #expect(fixture.calls["/page"] == 1)
        await fixture.server.shutdown()
    }

    @Test func unmarkedResponsesAndVaryStarAreNotStored() async throws {
        let fixture = try Self.start()
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            [Self.get("/plain"), Self.get("/plain"), Self.get("/any"), Self.get("/any")])
        #expect(responses.map(\.status) == [200, 200, 200, 200])
        #expect(fixture.calls["/plain"] == 2)
        #expect(fixture.calls["/any"] == 2)
        await fixture.server.shutdown()
    }

    @Test func theStoreStaysWithinItsCapacity() async throws {
        let targets = (0..<6).map { Self.get("/page?n=\($0)") }
        // The last three targets were still stored; the first three made room for them.
        try await Self.expect(
            targets + targets.suffix(3),
            answer: (0..<6).map { "v1 none n=\($0)" } + (3..<6).map { "v1 none n=\($0)" }, routed: 6,
            capacity: 3)
    }

    @Test func capacityZeroRoutesEveryRequest() async throws {
        try await Self.expect(
            [Self.get("/page"), Self.get("/page")], answer: ["v1 none ", "v1 none "], routed: 2, capacity: 0)
    }

    @Test func varyNamesAreReadFromEveryVaryField() {
        let headers: HTTPHeaders = HTTPHeaders([
            (name: "Vary", value: "Accept, accept-Language"), (name: "vary", value: " Accept-Encoding ,"),
        ])
        let names = StoredResponses.varyNames(headers)?.map { String(decoding: $0, as: UTF8.self) }
        #expect(names == ["accept", "accept-language", "accept-encoding"])
        #expect(StoredResponses.varyNames(["Vary": "Accept, *"]) == nil)
        #expect(StoredResponses.varyNames(["Vary": "a, b, c, d, e"]) == nil)
        #expect(StoredResponses.varyNames([:])?.isEmpty == true)
    }
}
