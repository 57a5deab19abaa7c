import FeedWeb
import Foundation
import HTTPServer
import Logging
import Metrics
import Owner
import Testing

@testable import pullrefresh

/// Walks every route the server registers (``ServeCommand/router(_:config:tls:owner:logger:metrics:)``,
/// the one `pullrefresh` serves) with an owner set: only the routes the issue names are open to
/// anyone, and every other one refuses a request without credentials (`303` to the sign-in page,
/// `401` under `/api/`), so a route added later cannot be open by accident.
@Suite("Route access with an owner")
struct RouteAccessTests {
    /// What stays open with an owner set: sign-in, health, metrics (by its flag), static files,
    /// the manifest, the service worker, the favicon and the API's description.
    static let open: Set<String> = [
        "GET /signin", "POST /signin", "GET /healthz", "GET /metrics", "GET /static/*",
        "GET /manifest.webmanifest", "GET /sw.js", "GET /favicon.ico", "GET /api/openapi.json",
    ]

    /// A path the pattern matches: each `:name` and `*` filled in.
    static func path(matching pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment == "*" || segment.hasPrefix(":") ? "x" : String(segment)
        }.joined(separator: "/")
    }

    @Test func everyRouteButTheOpenOnesRefusesARequestWithoutCredentials() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ptr-access-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let root = Executable.repositoryRoot
        let config = try Configuration.parse(
            [
                "--database", folder.appendingPathComponent("feed.sqlite").path,
                "--templates", root.appendingPathComponent("Templates").path,
                "--public", root.appendingPathComponent("Public").path,
            ], environment: [:])
        let logger = Logger(quiet: true)
        let (app, _, database) = try await ServeCommand.makeApp(config, logger: logger)
        let owner = try #require(try ServeCommand.ownerAuthority(config, logger: logger))
        try owner.setPassword("correct horse battery")
        let router = ServeCommand.router(
            app, config: config, tls: false, owner: owner, logger: logger, metrics: MetricsRegistry())
        #expect(router.routeAccess.count > Self.open.count)
        var seen: Set<String> = []
        for route in router.routeAccess {
            let name = "\(route.method) \(route.path)"
            seen.insert(name)
            if Self.open.contains(name) {
                #expect(route.access == .anyone, "\(name)")
                continue
            }
            #expect(route.access != .anyone, "\(name) is open to anyone")
            let path = Self.path(matching: route.path)
            let response = await router.respond(
                to: Request(method: route.method, path: path, headers: ["Host": "127.0.0.1"]))
            let api = path == "/api" || path.hasPrefix("/api/")
            #expect(response.status == (api ? 401 : 303), "\(name): \(response.status)")
            if api {
                #expect(response.headers["WWW-Authenticate"] == "Bearer realm=\"pullrefresh\"", "\(name)")
            } else {
                #expect(response.headers["Location"]?.hasPrefix("/signin") == true, "\(name)")
            }
        }
        // The open list names routes that exist (a renamed one would silently leave it).
        #expect(Self.open.isSubset(of: seen), "\(Self.open.subtracting(seen))")
        withExtendedLifetime(database) {}
    }
}
