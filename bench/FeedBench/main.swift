// feed-bench: in-process, cold (cache-free) costs of the two bodies the server builds per
// version — the HTML page (PageRenderer.page) and the JSON items (FeedApp.encodeItems) — for a
// 100-item snapshot. Run in release mode: `swift build -c release --product feed-bench`, then
// `.build/release/feed-bench [--templates Templates] [--seconds 2] [--items 100]`.
// `--profile page|json|route N` runs one operation N times untimed (for callgrind; `route` is a
// cached `GET --path P` (default /api/items) through the app's router, with the compression
// benchmark's headers: the socket-free part of the server's work); `--dump page|json` writes the body to stdout, so a change to the renderer or encoder can be checked byte for byte.
// `--sizes 50,500,5000,50000` instead measures, for stores of each size, the cold work the server
// does per version for `/`: render the first page (--page-size items, default 30) and compress it
// with gzip and brotli at the settings the server uses for it, plus the bytes of each encoding
// (`FEEDBENCH_SIZES_JSON {...}`).
//
// Each measurement runs a short warm-up, then 5 timed batches; the reported figure is the median
// batch's time per operation (robust against a batch disturbed by another process). The last
// output line is `FEEDBENCH_JSON {...}` for bench/run.py.
import Compression
import Feed
import FeedWeb
import Foundation
import HTTPServer
import Logging
import Metrics
import Mustache

struct Options {
    var templates = "Templates"
    /// The static files folder, for the app `--profile route` builds.
    var publicDirectory = "Public"
    /// The path `--profile route` asks for.
    var path = "/api/items"
    /// `--serve SECONDS`: serve the app on a free port for that long, then exit.
    var serveSeconds: Double?
    var seconds = 2.0
    var items = 100
    /// `--profile page|json|route N`: run only that operation N times, untimed (for callgrind).
    var profile: (what: String, count: Int)?
    /// `--dump page|json`: write that body to stdout (to check a change keeps the bytes).
    var dump: String?
    /// `--sizes 50,500,...`: page bytes and cold render + compress time per store size.
    var sizes: [Int] = []
    var pageSize = PageRenderer.defaultPageSize

    init(_ arguments: [String]) {
        var index = 0
        func next() -> String {
            index += 1
            guard index < arguments.count else { Options.usage("missing value for \(arguments[index - 1])") }
            return arguments[index]
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--templates": templates = next()
            case "--public": publicDirectory = next()
            case "--path": path = next()
            case "--serve": serveSeconds = Double(next())
            case "--seconds": seconds = Double(next()) ?? seconds
            case "--items": items = Int(next()) ?? items
            case "--dump": dump = next()
            case "--sizes": sizes = next().split(separator: ",").compactMap { Int($0) }
            case "--page-size": pageSize = Int(next()) ?? pageSize
            case "--profile":
                let what = next()
                profile = (what, Int(next()) ?? 100)
            default: Options.usage("unknown option \(arguments[index])")
            }
            index += 1
        }
    }

    static func usage(_ message: String) -> Never {
        FileHandle.standardError.write(
            Data(
                "feed-bench: \(message)\nusage: feed-bench [--templates DIR] [--seconds S] [--items N] [--public DIR] [--path P] [--profile page|json|route COUNT] [--serve SECONDS] [--dump page|json]\n"
                    .utf8))
        exit(2)
    }
}

struct Measurement {
    var name: String
    var microsPerOp: Double
    var bytes: Int
    var opsPerSecond: Double { 1e6 / microsPerOp }
}

/// Times `body` in 5 batches of about `seconds / 5` each and returns the median µs per call.
func measure(_ name: String, seconds: Double, _ body: () throws -> Int) rethrows -> Measurement {
    let clock = ContinuousClock()
    var sink = 0
    // Warm-up and calibration: how many calls fit in ~1/10 of a batch.
    var calibration = 0
    let warmStart = clock.now
    while clock.now - warmStart < .milliseconds(Int(seconds * 40)) || calibration < 3 {
        sink &+= try body()
        calibration += 1
    }
    let warmSeconds =
        Double((clock.now - warmStart).components.attoseconds) / 1e18
        + Double((clock.now - warmStart).components.seconds)
    let perCall = warmSeconds / Double(calibration)
    let callsPerBatch = max(1, Int(seconds / 5 / perCall))
    var batches: [Double] = []
    for _ in 0..<5 {
        let start = clock.now
        for _ in 0..<callsPerBatch { sink &+= try body() }
        let elapsed = clock.now - start
        let micros =
            (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
            / Double(callsPerBatch)
        batches.append(micros)
    }
    batches.sort()
    return Measurement(name: name, microsPerOp: batches[2], bytes: sink / (calibration + 5 * callsPerBatch))
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let templates = URL(fileURLWithPath: options.templates, isDirectory: true)
do {
    let library = try MustacheLibrary(directory: templates)
    let localizer = try Localizer(directory: templates.appendingPathComponent("strings"))
    let renderer = try PageRenderer(library: library, localizer: localizer)
    // A fixed clock keeps the output byte-stable between runs (see --dump).
    let fixedNow: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_780_000_000) }
    let generator = GeneratorSource(seed: 42, now: fixedNow)

    func snapshot(_ count: Int) -> FeedSnapshot {
        FeedStore(
            initial: generator.initialItems(count: count), source: generator, delay: .zero,
            maxItems: max(count, 1), now: fixedNow
        ).current
    }
    if !options.sizes.isEmpty {
        // Every store size is timed in each of 7 rounds, sizes interleaved (A B C D A B C D …), so
        // drift from other processes hits all sizes alike; each figure is the fastest round (the
        // work is deterministic: other processes on a shared machine only ever add time).
        let stores = options.sizes.map { count -> FeedSnapshot in
            let store = snapshot(count)
            precondition(store.entries.count == count, "expected \(count) items")
            return store
        }
        func page(_ store: FeedSnapshot) throws -> [UInt8] {
            try renderer.page(
                store, language: "en", layout: .list, explicitLanguage: false, pageSize: options.pageSize)
        }
        // The first page of `/` is compressed with the `.dense` brotli effort (FeedApp.page).
        func renderAndCompress(_ store: FeedSnapshot) throws -> Int {
            let body = try page(store)
            return body.count + (ContentCoding.gzip.encode(body, effort: .perVersion)?.count ?? 0)
                + (ContentCoding.br.encode(body, effort: .dense)?.count ?? 0)
        }
        func microseconds(_ calls: Int, _ body: () throws -> Int) rethrows -> Double {
            let start = ContinuousClock.now
            var sink = 0
            for _ in 0..<calls { sink &+= try body() }
            precondition(sink > 0)
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
                / Double(calls)
        }
        let perCall = try microseconds(3) { try renderAndCompress(stores[0]) }
        let calls = max(3, Int(options.seconds * 1e6 / 7 / Double(stores.count) / perCall))
        let renderCalls = calls * 20
        var render = Array(repeating: [Double](), count: stores.count)
        var total = Array(repeating: [Double](), count: stores.count)
        for _ in 0..<7 {
            for (index, store) in stores.enumerated() {
                render[index].append(try microseconds(renderCalls) { try page(store).count })
                total[index].append(try microseconds(calls) { try renderAndCompress(store) })
            }
        }
        var rows: [String] = []
        for (index, store) in stores.enumerated() {
            let count = options.sizes[index]
            let identity = try page(store)
            let gzip = ContentCoding.gzip.encode(identity, effort: .perVersion) ?? []
            let brotli = ContentCoding.br.encode(identity, effort: .dense) ?? []
            let renderFastest = render[index].min() ?? 0
            let totalFastest = total[index].min() ?? 0
            print(
                String(
                    format:
                        "%6d items: page %6d B, gzip %5d B, br %5d B; render %7.1f µs, render + gzip + br %7.1f µs",
                    count, identity.count, gzip.count, brotli.count, renderFastest, totalFastest))
            rows.append(
                "\"\(count)\":{\"identity\":\(identity.count),\"gzip\":\(gzip.count),\"br\":\(brotli.count),"
                    + "\"render_us\":\(String(format: "%.2f", renderFastest)),"
                    + "\"render_compress_us\":\(String(format: "%.2f", totalFastest))}")
        }
        print("FEEDBENCH_SIZES_JSON {\(rows.joined(separator: ","))}")
        exit(0)
    }
    let big = snapshot(options.items)
    let small = snapshot(12)
    precondition(big.entries.count == options.items, "expected \(options.items) items")

    if let what = options.dump {
        let bytes: [UInt8]
        switch what {
        case "page": bytes = try renderer.page(big, language: "en", layout: .list, explicitLanguage: false)
        case "json": bytes = FeedApp.encodeItems(big, limit: options.items)
        default: Options.usage("--dump takes page or json")
        }
        FileHandle.standardOutput.write(Data(bytes))
        exit(0)
    }
    /// The app as pullrefresh serves it, over a store of `--items` generated items.
    func makeApp() throws -> FeedApp {
        FeedApp(
            store: FeedStore(
                initial: generator.initialItems(count: options.items), source: generator, delay: .zero,
                maxItems: max(options.items, 1), now: fixedNow),
            renderer: renderer, files: try StaticFiles(directory: options.publicDirectory),
            logger: Logger(quiet: true))
    }
    if let seconds = options.serveSeconds {
        let app = try makeApp()
        let metrics = MetricsRegistry()
        var serverOptions = ServerOptions()
        serverOptions.port = 0
        serverOptions.threads = 1
        let server = try Server(
            router: app.router(), options: serverOptions, logger: Logger(quiet: true), metrics: metrics,
            metricPrefix: "pullrefresh")
        FileHandle.standardOutput.write(Data("feed-bench listening on http://\(server.address)\n".utf8))
        Thread.sleep(forTimeInterval: seconds)
        exit(0)
    }
    if let (what, count) = options.profile {
        var sink = 0
        // The socket-free part of a cached GET: what the server's C callbacks hand to the router
        // for the compression benchmark's request (wrk's headers and a browser's Accept-Encoding),
        // routed and answered from the response cache.
        let app = try makeApp()
        let router = app.router()
        let browserGET = Request(
            method: "GET", path: options.path,
            headers: ["Host": "127.0.0.1:8080", "Accept-Encoding": "gzip, deflate, br"])
        for _ in 0..<count {
            switch what {
            case "route":
                if case .response(let response) = router.route(browserGET) { sink &+= response.body.count }
            case "page":
                sink &+= try renderer.page(big, language: "en", layout: .list, explicitLanguage: false).count
            case "json": sink &+= FeedApp.encodeItems(big, limit: options.items).count
            default: Options.usage("--profile takes page, json or route")
            }
        }
        print("feed-bench: profiled \(count) × \(what), \(sink / max(count, 1)) bytes each")
        exit(0)
    }

    let results = [
        try measure("page_\(options.items)", seconds: options.seconds) {
            try renderer.page(big, language: "en", layout: .list, explicitLanguage: false).count
        },
        measure("json_\(options.items)", seconds: options.seconds) {
            FeedApp.encodeItems(big, limit: options.items).count
        },
        try measure("page_12", seconds: options.seconds / 2) {
            try renderer.page(small, language: "en", layout: .list, explicitLanguage: false).count
        },
    ]
    for result in results {
        print(
            String(
                format: "%-10@ %9.1f µs/op  %10.0f ops/s  %7d bytes", result.name as NSString,
                result.microsPerOp, result.opsPerSecond, result.bytes))
    }
    let json = results.map {
        "\"\($0.name)\":{\"us_per_op\":\(String(format: "%.2f", $0.microsPerOp)),"
            + "\"ops_per_s\":\(String(format: "%.0f", $0.opsPerSecond)),\"bytes\":\($0.bytes)}"
    }.joined(separator: ",")
    print("FEEDBENCH_JSON {\(json)}")
} catch {
    FileHandle.standardError.write(Data("feed-bench: \(error)\n".utf8))
    exit(1)
}
