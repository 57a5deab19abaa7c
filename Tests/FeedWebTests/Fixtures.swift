import Foundation
import HTTPServer
import Logging
import Mustache
import TestSupport

@testable import Feed
@testable import FeedWeb

/// Shared set-up: the project's real templates, a temporary Public/ folder, data files.
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let templates = repositoryRoot.appendingPathComponent("Templates")

    static func renderer() throws -> PageRenderer {
        let library = try MustacheLibrary(directory: templates)
        let localizer = try Localizer(directory: templates.appendingPathComponent("strings"))
        return try PageRenderer(library: library, localizer: localizer)
    }

    /// A Public/ folder with a script, a stylesheet, a subfolder, a hidden file, and a secret
    /// next to (outside) it for traversal tests.
    static func publicFolder() throws -> (root: URL, publicDir: URL) {
        let root = try FeedSamples.temporaryDirectory()
        let publicDir = root.appendingPathComponent("Public")
        try FileManager.default.createDirectory(
            at: publicDir.appendingPathComponent("img"), withIntermediateDirectories: true)
        try "console.log('ptr');\n".write(
            to: publicDir.appendingPathComponent("pull-to-refresh.js"), atomically: true, encoding: .utf8)
        try "body{margin:0}\n".write(
            to: publicDir.appendingPathComponent("app.css"), atomically: true, encoding: .utf8)
        try "<svg xmlns='http://www.w3.org/2000/svg'/>".write(
            to: publicDir.appendingPathComponent("img/logo.svg"), atomically: true, encoding: .utf8)
        try "hidden".write(to: publicDir.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        try "TOP SECRET".write(
            to: root.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: publicDir.appendingPathComponent("escape.txt"),
            withDestinationURL: root.appendingPathComponent("secret.txt"))
        return (root, publicDir)
    }

    /// An app over a generator (or the given source) with zero delay.
    static func app(
        source: (any FeedSource)? = nil, initial: [FeedItem]? = nil, delay: Duration = .zero,
        maxItems: Int = 500
    ) throws -> (FeedApp, URL) {
        let (root, publicDir) = try publicFolder()
        let generator = GeneratorSource(seed: 7)
        let store = FeedStore(
            initial: initial ?? generator.initialItems(count: 5), source: source ?? generator, delay: delay,
            maxItems: maxItems)
        let app = FeedApp(
            store: store, renderer: try renderer(), files: try StaticFiles(directory: publicDir.path),
            logger: Logger(quiet: true))
        return (app, root)
    }

    static func text(_ response: Response) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    static func json(_ response: Response) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
    }
}
