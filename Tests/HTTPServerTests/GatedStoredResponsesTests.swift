import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// A gate that admits a request carrying `Cookie: session=good` to every route, and everyone
/// to `.reader` routes while `everyone` is set (a public river); it counts what it was asked.
final class CookieGate: AccessGate {
    let everyone = Atomic<Bool>(false)
    let asked = Atomic<Int>(0)

    func admit(_ request: inout Request, to access: Access) -> Response? {
        asked.add(1, ordering: .relaxed)
        if access == .anyone || request.headers["Cookie"] == "session=good" { return nil }
        if access == .reader, everyone.load(ordering: .relaxed) { return nil }
        return .redirect(to: "/signin?next=" + request.path)
    }

    func admitsEveryone(to access: Access) -> Bool {
        access == .anyone || (access == .reader && everyone.load(ordering: .relaxed))
    }
}

@Suite("A stored answer of a guarded route goes only to requests the gate admits")
struct GatedStoredResponsesTests {
    struct Fixture {
        let server: Server
        let gate: CookieGate
        let calls: HandlerCalls
    }

    /// `/river` (reader) and `/open` (anyone) answer reusable pages at one version.
    static func start() throws -> Fixture {
        let content = TestContent()
        let calls = HandlerCalls()
        let gate = CookieGate()
        var router = Router()
        for (path, access) in [("/river", Access.reader), ("/open", .anyone)] {
            router.get(path, access: access) { request in
                calls.record(request.path)
                return Response(headers: ["Content-Type": "text/plain"], body: Array("page \(path)".utf8))
                    .prepared().reusable(while: content, isAt: content.currentVersion)
            }
        }
        router.gate = gate
        var options = ServerOptions()
        options.port = 0
        options.threads = 1
        options.storedResponses = 16
        let server = try Server(router: router, options: options, logger: Logger(quiet: true))
        return Fixture(server: server, gate: gate, calls: calls)
    }

    static func get(_ target: String, _ extra: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n"
    }

    @Test func aSignedOutRequestAfterASignedInOneIsRefusedNotAnsweredFromTheStore() async throws {
        let fixture = try Self.start()
        let signedIn = Self.get("/river", "Cookie: session=good\r\n")
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            [
                signedIn, signedIn, Self.get("/river"), Self.get("/river", "Cookie: session=stolen\r\n"),
                signedIn,
            ])
        #expect(responses.map(\.status) == [200, 200, 303, 303, 200])
        #expect(responses[2].header("Location") == "/signin?next=/river")
        #expect(!responses[2].text.contains("page"))
        // Routed once: the repeats that were admitted came from the store, after asking the gate.
        #expect(fixture.calls["/river"] == 1)
        #expect(fixture.gate.asked.load(ordering: .relaxed) == 5)
        await fixture.server.shutdown()
    }

    @Test func aRouteOpenToEveryoneIsAnsweredFromTheStoreWithoutAskingTheGate() async throws {
        let fixture = try Self.start()
        fixture.gate.everyone.store(true, ordering: .relaxed)
        let responses = try await RawConnection.exchange(
            port: fixture.server.port,
            [Self.get("/river"), Self.get("/river"), Self.get("/open"), Self.get("/open")])
        #expect(responses.map(\.status) == [200, 200, 200, 200])
        #expect(fixture.calls["/river"] == 1 && fixture.calls["/open"] == 1)
        // Asked only when routing (the two first requests); the stored answers went straight out.
        #expect(fixture.gate.asked.load(ordering: .relaxed) == 2)
        // The river closes again (an owner was set): the stored page no longer goes to anyone.
        fixture.gate.everyone.store(false, ordering: .relaxed)
        let closed = try await RawConnection.exchange(port: fixture.server.port, [Self.get("/river")])
        #expect(closed.map(\.status) == [303])
        await fixture.server.shutdown()
    }
}
