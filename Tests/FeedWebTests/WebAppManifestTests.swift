import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Feed
@testable import FeedWeb

/// `GET /manifest.webmanifest` and `/favicon.ico` on a real port.
@Suite("The web app manifest over the wire")
struct WebAppManifestTests {
    static func manifest(_ response: RawResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test func theManifestIsLocalizedTypedAndRevalidated() async throws {
        let (app, _) = try Fixtures.app()
        let server = try LiveFeedTests.start(app)
        let korean = try await ContractFixesTests.get(server.port, "/manifest.webmanifest?lang=KO")
        #expect(korean.status == 200)
        #expect(korean.header("Content-Type") == "application/manifest+json")
        let document = try Self.manifest(korean)
        #expect(document["name"] as? String == "PullRefresh: 최신 항목")
        #expect(document["start_url"] as? String == "/?lang=ko")
        #expect(document["id"] as? String == "/")
        #expect(document["display"] as? String == "standalone")
        let icons = try #require(document["icons"] as? [[String: String]])
        #expect(icons.map { $0["sizes"] ?? "" } == ["192x192", "512x512", "512x512"])
        #expect(icons.map { $0["purpose"] ?? "" } == ["any", "any", "maskable"])
        // Negotiated from Accept-Language without ?lang=, starting at / (and saying it varies).
        let negotiated = try await ContractFixesTests.get(
            server.port, "/manifest.webmanifest", "Accept-Language: ja\r\n")
        #expect(try Self.manifest(negotiated)["lang"] as? String == "ja")
        #expect(try Self.manifest(negotiated)["start_url"] as? String == "/")
        #expect(negotiated.header("Vary")?.contains("Accept-Language") == true)
        let etag = try #require(negotiated.header("ETag"))
        let again = try await ContractFixesTests.get(
            server.port, "/manifest.webmanifest", "Accept-Language: ja\r\nIf-None-Match: \(etag)\r\n")
        #expect(again.status == 304)
        #expect(try await ContractFixesTests.get(server.port, "/manifest.webmanifest?lang=xx").status == 400)
        await server.shutdown()
    }

    @Test func theColoursAreAppCSSsLightBackground() throws {
        let css = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Public/app.css"), encoding: .utf8)
        #expect(css.contains("--bg: \(WebAppManifest.backgroundColor);"))
    }

    @Test func theFaviconIsServedAtTheRoot() async throws {
        let generator = GeneratorSource(seed: 7)
        let store = FeedStore(
            initial: generator.initialItems(count: 5), source: generator, delay: .zero, maxItems: 50)
        let app = FeedApp(
            store: store, renderer: try Fixtures.renderer(),
            files: try StaticFiles(directory: Fixtures.repositoryRoot.appendingPathComponent("Public").path),
            logger: Logger(quiet: true))
        let server = try LiveFeedTests.start(app)
        let icon = try await ContractFixesTests.get(server.port, "/favicon.ico")
        #expect(icon.status == 200)
        #expect(icon.header("Content-Type") == "image/x-icon")
        // An ICO header: reserved 0, type 1, one image.
        #expect(Array(icon.body.prefix(6)) == [0, 0, 1, 0, 1, 0])
        await server.shutdown()
    }
}
