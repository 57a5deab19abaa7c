import Feed
import FeedWeb
import Foundation
import HTTPServer
import Logging
import River
import Storage
import TestSupport
import Testing

@testable import pullrefresh

/// `makeApp` with `--database`: the river over the subscriptions table, the command line synced
/// in as the operator's, the demo until a first source, and the stored snapshot agreeing with
/// the table at every start (real files, feeds on loopback).
@Suite("The database's river at start")
struct SubscriptionWiringTests {
    static func start(_ database: String, _ arguments: [String] = []) async throws -> FeedApp {
        let root = Executable.repositoryRoot
        let config = try Configuration.parse(
            [
                "--database", database, "--templates", root.appendingPathComponent("Templates").path,
                "--public", root.appendingPathComponent("Public").path, "--quiet",
            ] + arguments, environment: [:])
        let (app, _, _) = try await ServeCommand.makeApp(config, logger: Logger(quiet: true))
        return app
    }

    /// The keys `GET /api/sources` lists, in order.
    static func listed(_ app: FeedApp) async throws -> [String] {
        let response = await app.router().respond(
            to: try Request(method: "GET", target: "/api/sources", headers: [:]))
        let document = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return (document?["sources"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String }
    }

    static func keys(_ app: FeedApp) -> Set<String> {
        Set(app.store.current.items.compactMap { RiverItemID.key(of: $0.id).map(String.init) })
    }

    @Test func theCommandLineIsSyncedAndTheSnapshotAgreesWithTheTableAtEachStart() async throws {
        let server = try RiverServer.running()
        let (kept, dropped) = (RiverServer.name("kept"), RiverServer.name("dropped"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ptr-wiring-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("feed.sqlite").path
        do {
            // A new file without sources: the demo stands in, and the schedule still runs.
            let app = try await Self.start(path)
            #expect(app.store.current.items.count == 12)
            #expect(app.store.current.items.allSatisfy { RiverItemID.key(of: $0.id) == nil })
            #expect(try await Self.listed(app).isEmpty)
        }
        let both = [
            "--source", server.url(kept).absoluteString, "--source", server.url(dropped).absoluteString,
        ]
        do {
            // The operator's sources join: the demo's items leave before anything is served.
            let app = try await Self.start(path, both)
            #expect(Self.keys(app).isEmpty)
            #expect(app.store.current.items.count == 0)
            #expect(
                try await Self.listed(app) == [
                    SourceKey.of(server.url(kept)), SourceKey.of(server.url(dropped)),
                ])
            _ = try await app.store.reload()
            #expect(Self.keys(app) == [SourceKey.of(server.url(kept)), SourceKey.of(server.url(dropped))])
        }
        do {
            // One source left the command line: its row and its items are gone at start.
            let app = try await Self.start(path, ["--source", server.url(kept).absoluteString])
            #expect(Self.keys(app) == [SourceKey.of(server.url(kept))])
            #expect(try await Self.listed(app) == [SourceKey.of(server.url(kept))])
        }
        do {
            // No source at all now: the river is empty, and the demo does not come back.
            let app = try await Self.start(path)
            #expect(app.store.current.items.isEmpty)
            _ = try await app.store.reload()
            #expect(app.store.current.items.isEmpty)
        }
        let reopened = try FeedDatabase(path: path)
        #expect(try SubscriptionTable(reopened).all().isEmpty)
        #expect(try reopened.load(maxItems: 100).snapshot?.entries.isEmpty == true)
    }

    @Test func refreshEveryDefaultsToFifteenMinutesWithADatabase() throws {
        let config = try Configuration.parse(["--database", "/tmp/unused.sqlite"], environment: [:])
        #expect(config.refreshEvery == .seconds(900))
        let off = try Configuration.parse(
            ["--database", "/tmp/unused.sqlite", "--refresh-every", "0"], environment: [:])
        #expect(off.refreshEvery == nil)
        #expect(throws: UsageError.self) {
            try Configuration.parse(["--refresh-every", "1m"], environment: [:])
        }
        #expect(throws: UsageError.self) {
            try Configuration.parse(
                ["--database", "/tmp/x.sqlite", "--data", "x.json", "--refresh-every", "1m"], environment: [:]
            )
        }
    }
}
