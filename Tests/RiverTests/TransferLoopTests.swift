import FeedParsing
import Foundation
import TestSupport
import Testing

@testable import HTTPClient
@testable import River

/// The transfer loop against a `river_server.py` of each test's own, which counts the
/// connections that carried a feed request: kept connections across reloads, checked transfers
/// kept apart from them, and many transfers at once on one thread.
@Suite("Transfers on one thread with kept connections")
struct TransferLoopTests {
    let limits = FetchLimits(connectTimeout: 2, totalTimeout: 15, userAgent: "pullrefresh/test")

    @Test func aRiverReloadReusesTheConnectionsOfTheLastOne() async throws {
        let server = try RiverServer.ownServer()
        let names = (0..<10).map { "kept\($0)" }
        // One fetch at a time, so that how many connections a reload needs does not depend on how
        // its fetches happened to overlap (with 16 at once, a loaded machine may run the first
        // reload's fetches one after another on a few connections and a later one's all at once):
        // each fetch finds the connection the one before it left.
        let river = River(
            subscriptions: names.map { Subscription(url: server.url($0)) }, limits: limits, concurrency: 1)
        var items = try await river.fetch(current: [])
        #expect(try await server.feedConnections() == 1)
        for _ in 0..<3 {
            items = try await river.fetch(current: items)
        }
        // Three more reloads of ten feeds (all 304 now): forty GETs, still over that one connection.
        #expect(try await server.feedConnections() == 1)
        for name in names {
            let stats = try await server.stats(name)
            #expect(stats["requests"] == 4)
            #expect(stats["notModified"] == 3)
        }
    }

    @Test func aRiverFetchesAtMostItsConcurrencyAtOnce() async throws {
        let server = try RiverServer.ownServer()
        let names = (0..<9).map { "bounded\($0)" }
        for name in names { try await server.set(name, "mode=slow&delay=0.2") }
        let river = River(
            subscriptions: names.map { Subscription(url: server.url($0)) }, limits: limits, concurrency: 3)
        let items = try await river.fetch(current: [])
        #expect(items.count == 9)
        let counts = try await server.connectionCounts()
        // Nine feeds of 0.2 s each: the loop runs whatever it is given at once, so the bound
        // is the river's alone (without it all nine are answered at once).
        let peak = try #require(counts["peakInFlight"])
        #expect((1...3).contains(peak), "\(counts)")
    }

    @Test func aCheckedTransferNeverTakesAKeptConnection() async throws {
        let server = try RiverServer.ownServer()
        let url = server.url("checked")
        let unchecked = HTTPFetcher(limits: limits)
        _ = try await unchecked.fetch(url)
        #expect(try await server.feedConnections() == 1)
        // The same host, now through a policy refusing loopback: the idle connection to it
        // must not carry the request; a new one is checked, and refused before it is opened.
        var refusing = TransferOptions(accept: "*/*")
        refusing.addressPolicy = .publicOnly
        let refused = await Self.failure(of: unchecked, url, refusing)
        #expect(refused?.kind == .blockedAddress, "\(String(describing: refused))")
        #expect(try await server.stats("checked")["requests"] == 1)
        #expect(try await server.feedConnections() == 1)
        // Allowed, it connects anew rather than reusing the unchecked connection.
        var allowing = TransferOptions(accept: "*/*")
        allowing.addressPolicy = .any
        _ = try await unchecked.get(url, allowing)
        #expect(try await server.stats("checked")["requests"] == 2)
        #expect(try await server.feedConnections() == 2)
    }

    @Test func aCheckedTransfersConnectionIsNotKeptForOthers() async throws {
        let server = try RiverServer.ownServer()
        let url = server.url("apart")
        let fetcher = HTTPFetcher(limits: limits)
        var checked = TransferOptions(accept: "*/*")
        checked.addressPolicy = .any
        _ = try await fetcher.get(url, checked)
        #expect(try await server.feedConnections() == 1)
        // An unchecked transfer after it opens its own connection, which is then kept.
        _ = try await fetcher.fetch(url)
        #expect(try await server.feedConnections() == 2)
        _ = try await fetcher.fetch(url)
        #expect(try await server.feedConnections() == 2)
        #expect(try await server.stats("apart")["requests"] == 3)
    }

    @Test func fiftyTransfersAtOnceRunOnOneThread() async throws {
        let server = try RiverServer.ownServer()
        // The upstream holds every request until all fifty arrived: they can only succeed if
        // they are in flight at the same time.
        try await server.set("gate", "mode=gate&count=50")
        let fetcher = HTTPFetcher(limits: limits)
        let url = server.url("gate")
        let answered = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    guard case .body = try? await fetcher.fetch(url) else { return false }
                    return true
                }
            }
            var answered = 0
            for await ok in group where ok { answered += 1 }
            return answered
        }
        #expect(answered == 50)
        #expect(try await server.stats("gate")["ok"] == 50)
        #expect(try await server.feedConnections() == 50)
        let threads = try Self.threadNames()
        #expect(threads.filter { $0 == TransferLoop.threadName }.count == 1, "\(threads)")
    }

    /// A batch yields a body as soon as it arrives (so it is parsed while the others run) with
    /// the 304s held before it; a 304 that comes after it waits for the next body or the end.
    /// Feeds answer after 0 s (two 304s), 0.3 s (a body), 1 s (a 304) and 2 s (a body).
    @Test func aBatchYieldsBodiesAtOnceAndHoldsThe304sForTheNext() async throws {
        let server = try RiverServer.ownServer()
        let fetcher = HTTPFetcher(limits: limits)
        var etags: [String: String] = [:]
        for name in ["first304", "second304", "late304"] {
            guard case .body(let body) = try await fetcher.fetch(server.url(name)) else {
                Issue.record("no body for \(name)")
                return
            }
            etags[name] = body.etag
        }
        try await server.set("quickBody", "mode=slow&delay=0.3")
        try await server.set("late304", "mode=slow&delay=1")
        try await server.set("slowBody", "mode=slow&delay=2")
        let names = ["first304", "second304", "quickBody", "late304", "slowBody"]
        let started = ContinuousClock.now
        var arrivals: [(name: String, after: Duration, bringsBody: Bool)] = []
        for await completion in fetcher.fetchAll(
            names.map { (server.url($0), etags[$0], nil) }, concurrency: names.count)
        {
            arrivals.append((names[completion.index], ContinuousClock.now - started, completion.bringsBody))
        }
        #expect(arrivals.count == 5)
        #expect(Set(arrivals.prefix(2).map(\.name)) == ["first304", "second304"], "\(arrivals)")
        #expect(arrivals.map(\.bringsBody) == [false, false, true, false, true], "\(arrivals)")
        #expect(arrivals.suffix(3).map(\.name) == ["quickBody", "late304", "slowBody"], "\(arrivals)")
        // The quick body, and the 304s before it, came long before the slow body's 2 s...
        #expect(arrivals[2].after < .milliseconds(1900), "\(arrivals)")
        // ...and the late 304 only with it, though it was answered after 1 s.
        #expect(arrivals[3].after >= .seconds(2), "\(arrivals)")
    }

    static func failure(of fetcher: HTTPFetcher, _ url: URL, _ options: TransferOptions) async
        -> UpstreamError?
    {
        do {
            _ = try await fetcher.get(url, options)
            return nil
        } catch {
            return error
        }
    }

    /// The names of this process's threads (a thread that ended since the listing is left out:
    /// other suites start and end theirs meanwhile).
    static func threadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .newlines)
        }
    }
}
