import Feed
import Foundation
import HTTPServer
import Mustache
import RedisFeed

/// `pullrefresh` without a subcommand: load templates and data, serve until a signal.
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let config: Configuration
        do {
            config = try Configuration.parse(arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            return fail("\(error.message) (see --help)", status: 2)
        }
        if config.showHelp {
            FileHandle.standardOutput.write(Data((Configuration.usage + "\n").utf8))
            return 0
        }
        let logger = Logger(quiet: config.quiet)
        let app: FeedApp
        do {
            app = try await makeApp(config, logger: logger)
        } catch let error as RedisError {
            return fail("Redis \(config.redis.url.map { "at \($0) " } ?? "")\(error.description)")
        } catch let error as FeedError {
            return fail(error.message)
        } catch let error as MustacheError {
            return fail("templates: \(error.description)")
        } catch {
            return fail("\(error)")
        }
        let signals = SignalWaiter()
        let server: Server
        do {
            server = try Server(router: app.router(), options: config.server, logger: logger)
        } catch {
            return fail(error.description)
        }
        logger.always("pullrefresh listening on http://\(server.address)")
        let signalName = await signals.wait()
        logger.notice("received \(signalName)")
        await server.shutdown()
        (app.store as? RedisFeedStore)?.close()
        return 0
    }

    static func makeApp(_ config: Configuration, logger: Logger) async throws -> FeedApp {
        let templatesURL = URL(fileURLWithPath: config.templates, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: templatesURL.path, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw FeedError("templates folder \(config.templates) does not exist")
        }
        let library = try MustacheLibrary(directory: templatesURL)
        let localizer = try Localizer(directory: templatesURL.appendingPathComponent("strings"))
        let renderer = try PageRenderer(library: library, localizer: localizer)
        let files = try StaticFiles(directory: config.publicDirectory)

        let source: any FeedSource
        let initial: [FeedItem]
        if let path = config.dataFile {
            let fileSource = FileSource(path: path)
            initial = try fileSource.load()
            source = fileSource
        } else {
            let generator = GeneratorSource(seed: config.seed)
            initial = generator.initialItems(count: min(12, config.maxItems))
            source = generator
        }
        let store: any FeedBackend
        if let redis = config.redis.configuration(reloadDelay: config.reloadDelay) {
            store = try await RedisFeedStore.connect(
                redis, initial: initial, source: source, delay: config.reloadDelay, maxItems: config.maxItems,
                logger: logger)
        } else {
            store = FeedStore(
                initial: initial, source: source, delay: config.reloadDelay, maxItems: config.maxItems)
        }
        return FeedApp(store: store, renderer: renderer, files: files, logger: logger)
    }

    private static func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("pullrefresh: \(message)\n".utf8))
        return status
    }
}
