// The fuzz oracle and its regression tests, in one file so both run the same logic.
//
// It lives under fuzz/Oracles/. The fuzz package (fuzz/Package.swift) compiles it into its two
// targets through symlinks (fuzz/Sources/*/FuzzOracle.swift) with `FUZZING` defined; there only
// `FuzzOracle` exists. FeedWebTests compiles it through Tests/FeedWebTests/FuzzOracle.swift,
// where the suite at the bottom replays every file in fuzz/corpus/ and fuzz/regressions/
// through the same oracle.

import Feed
import FeedWeb
import Foundation
import HTTPServer
import Logging
import Mustache
import Synchronization

#if !FUZZING
    import Testing
#endif

/// Drives the Mustache engine and the real router with arbitrary bytes and checks the
/// invariants that must hold for every input. Only public API is used.
enum FuzzOracle {
    /// An invariant that did not hold; the fuzz targets trap on it, the tests record it.
    struct Violation: Error, CustomStringConvertible {
        let description: String

        init(_ description: String) {
            self.description = description
        }
    }

    // MARK: - Mustache

    /// The fixed context every parsed template is rendered with. Each element of `items`
    /// shadows `items` with an empty list, so nested `{{#items}}` sections cannot multiply
    /// (2 × 2 × … is the template's doing, not a bug).
    static let mustacheContext: MustacheValue = [
        "name": "World",
        "html": "<b>\"Tom\" & 'Jerry'</b>",
        "zero": 0,
        "pi": 3.25,
        "yes": true,
        "no": false,
        "nothing": .null,
        "empty": [],
        "blank": "",
        "items": [["name": "a", "n": 1, "items": []], ["name": "b", "n": 2, "items": [], "no": true]],
        "nested": ["a": ["b": ["c": "deep"]]],
        "self": "self",
        "other": "other",
        "unicode": "żółw 🐢 한국어",
    ]

    /// A second partial, so dynamic names and references to `other` resolve to something.
    static var otherTemplate: MustacheTemplate {
        do {
            return try MustacheTemplate(string: "[{{name}}{{#items}}<{{n}}>{{/items}}]\n", name: "other")
        } catch {
            fatalError("the fixed partial must parse: \(error)")
        }
    }

    /// Bytes → JSON context and template (a NUL byte splits them: template before, JSON after);
    /// parse, render with and without partials (including itself), through a library too.
    ///
    /// The renderer has no work budget, so inputs whose cost is the template's own (nested
    /// sections over long lists, recursion driven by deep data) are kept out: a JSON context is
    /// rendered with its lists cut to one element and without the template as its own partial.
    /// Recursion is exercised with the fixed context, where only the renderer's depth limit
    /// can stop it.
    static func exerciseMustache(_ input: [UInt8]) throws(Violation) {
        let templateBytes: [UInt8]
        let jsonContext: MustacheValue?
        if let nul = input.firstIndex(of: 0) {
            templateBytes = Array(input[..<nul])
            jsonContext = try exerciseJSON(Array(input[(nul + 1)...]))
        } else {
            templateBytes = input
            jsonContext = try exerciseJSON(input)
        }
        let source = String(decoding: templateBytes, as: UTF8.self)
        let template: MustacheTemplate
        do {
            template = try MustacheTemplate(string: source, name: "self")
        } catch {
            guard error.kind == .syntax else {
                throw Violation("template parse failed with kind \(error.kind), not .syntax: \(error)")
            }
            try checkPosition(error, in: Array(source.utf8))
            return
        }
        // Parsing is deterministic.
        guard
            (try? MustacheTemplate(string: source, name: "self"))?.referencedTemplateNames
                == template.referencedTemplateNames
        else {
            throw Violation("second parse of the same source differs")
        }
        let other = otherTemplate
        if let jsonContext {
            let context = firstElements(jsonContext)
            _ = try render(template, context, partials: [:])
            let once = try render(template, context, partials: ["other": other])
            guard try render(template, context, partials: ["other": other]) == once else {
                throw Violation("rendering the same template twice gave different output")
            }
        }
        let partials = ["self": template, "other": other]
        let context = mustacheContext
        _ = try render(template, context, partials: [:])
        let recursive = try render(template, context, partials: partials)
        guard try render(template, context, partials: partials) == recursive else {
            throw Violation("rendering the same template twice gave different output")
        }
        // A library built from the source renders exactly what the template does.
        let library: MustacheLibrary
        do {
            library = try MustacheLibrary(
                templates: ["self": source, "other": "[{{name}}{{#items}}<{{n}}>{{/items}}]\n"],
                missingTemplates: .renderEmpty)
        } catch {
            throw Violation("library rejected a source that parsed on its own: \(error)")
        }
        var fromLibrary: [UInt8] = []
        do {
            try library.render(context, template: "self", into: &fromLibrary)
        } catch {
            throw Violation("library could not render 'self': \(error)")
        }
        guard fromLibrary == recursive else {
            throw Violation("library output differs from template output with the same partials")
        }
        // With .failAtLoad, only names the template really references may be reported missing.
        do {
            _ = try MustacheLibrary(templates: ["self": source], missingTemplates: .failAtLoad)
        } catch {
            guard case .missingTemplate(let name) = error.kind, name != "self",
                template.referencedTemplateNames.contains(name)
            else {
                throw Violation("unexpected library error: \(error)")
            }
        }
    }

    /// `value` with every list cut to its first element.
    private static func firstElements(_ value: MustacheValue) -> MustacheValue {
        switch value {
        case .list(let items): .list(items.prefix(1).map(firstElements))
        case .object(let fields): .object(fields.mapValues(firstElements))
        case .string, .number, .bool, .null: value
        }
    }

    private static func render(
        _ template: MustacheTemplate, _ context: MustacheValue, partials: [String: MustacheTemplate]
    ) throws(Violation) -> [UInt8] {
        var output: [UInt8] = []
        template.render(context, partials: partials, into: &output)
        // Output is template text cut at tag boundaries plus context strings: always UTF-8.
        guard String(validating: output, as: UTF8.self) != nil else {
            throw Violation("render produced invalid UTF-8")
        }
        return output
    }

    /// Parses `bytes` as a JSON context; a value must survive a write/read round trip, an
    /// error must point inside the input.
    static func exerciseJSON(_ bytes: [UInt8]) throws(Violation) -> MustacheValue? {
        let value: MustacheValue
        do {
            value = try MustacheValue(json: Data(bytes))
        } catch {
            guard error.kind == .invalidJSON else {
                throw Violation("JSON parse failed with kind \(error.kind), not .invalidJSON: \(error)")
            }
            try checkPosition(error, in: bytes)
            return nil
        }
        var text: [UInt8] = []
        writeJSON(value, to: &text)
        let again: MustacheValue
        do {
            again = try MustacheValue(json: Data(text))
        } catch {
            throw Violation("JSON written from a parsed value does not parse: \(error)")
        }
        guard again == value else { throw Violation("JSON round trip changed the value") }
        return value
    }

    private static func checkPosition(_ error: MustacheError, in bytes: [UInt8]) throws(Violation) {
        guard let line = error.line, let column = error.column else {
            throw Violation("error without a position: \(error)")
        }
        // Lines end at LF bytes (a CRLF is one Character, so String splitting would not do);
        // a column counts characters, so the line's byte count bounds it.
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count, column >= 1, column <= lines[line - 1].count + 1 else {
            throw Violation("error position \(line):\(column) is outside the input: \(error)")
        }
    }

    private static func writeJSON(_ value: MustacheValue, to out: inout [UInt8]) {
        switch value {
        case .string(let text): writeJSONString(text, to: &out)
        case .number(let number): out.append(contentsOf: number.text.utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .list(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeJSON(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (index, (key, item)) in fields.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeJSONString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                writeJSON(item, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    // MARK: - Requests

    /// A request as split from raw bytes, with strings made the way the server makes them
    /// (`String(cString:)`: cut at the first NUL, invalid UTF-8 repaired).
    struct RawRequest: Sendable {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var body: [UInt8]

        /// `METHOD SP target SP version CRLF`, `Name: value` lines, a blank line, the body.
        /// Bare LF ends lines too. Nil when there is no method and target.
        init?(_ input: [UInt8]) {
            var headEnd = input.count
            var bodyStart = input.count
            for index in input.indices {
                if input[index...].starts(with: [13, 10, 13, 10]) {
                    (headEnd, bodyStart) = (index, index + 4)
                    break
                }
                if input[index...].starts(with: [10, 10]) {
                    (headEnd, bodyStart) = (index, index + 2)
                    break
                }
            }
            var lines = input[..<headEnd].split(separator: 10, omittingEmptySubsequences: false).map {
                $0.last == 13 ? $0.dropLast() : $0
            }
            guard !lines.isEmpty else { return nil }
            let requestLine = lines.removeFirst()
            let parts = requestLine.split(separator: 32, maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts[0].isEmpty else { return nil }
            method = Self.cString(parts[0])
            target = Self.cString(parts[1])
            version = parts.count > 2 ? Self.cString(parts[2]) : "HTTP/1.0"
            var fields: [(name: String, value: String)] = []
            for line in lines {
                guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
                    continue
                }
                let value = line[(colon + 1)...].drop(while: { $0 == 32 || $0 == 9 })
                fields.append((Self.cString(line[..<colon]), Self.cString(value)))
            }
            headers = HTTPHeaders(fields)
            body = Array(input[bodyStart...])
        }

        private static func cString(_ bytes: ArraySlice<UInt8>) -> String {
            let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
    }

    /// A request ready to route: what the router was given and what it answered.
    struct Prepared: Sendable {
        var request: Request
        var outcome: Router.Outcome
        /// Whether the target failed to decode (answered as the server does before routing).
        var rejectedBeforeRouting: Bool
    }

    /// An upstream that fails every third fetch (the 502 paths) and otherwise adds items like
    /// the generator, so every successful reload makes a new version.
    final class FlakySource: FeedSource {
        private let generator = GeneratorSource(seed: 7)
        private let fetches = Atomic<Int>(0)

        func fetch(current: [FeedItem]) async throws -> [FeedItem] {
            if fetches.add(1, ordering: .relaxed).newValue % 3 == 0 {
                throw FeedError("upstream is flaky")
            }
            return try await generator.fetch(current: current)
        }
    }

    /// The real app over the repository's templates and a temporary Public/ folder, with a
    /// secret file next to it and symlinks that point out of it.
    final class RequestRig: Sendable {
        static let secret = Array("FUZZ-SECRET-5d1c9e".utf8)
        static let hidden = Array("FUZZ-HIDDEN-0b7a42".utf8)
        /// Lower-case marker that must never reach an HTML body unescaped.
        static let markup = Array("<fuzz".utf8)

        let router: Router
        let temporaryRoot: URL
        private let store: FeedStore
        private let renderer: PageRenderer
        private let publicPath: String
        /// Every body a 200 under /static/ may have: the regular, visible files in Public/.
        let servable: Set<[UInt8]>

        init(repositoryRoot: URL) throws {
            let fileManager = FileManager.default
            let root = fileManager.temporaryDirectory.appendingPathComponent(
                "pullrefresh-fuzz-\(UUID().uuidString)")
            let publicDir = root.appendingPathComponent("Public")
            try fileManager.createDirectory(
                at: publicDir.appendingPathComponent("img"), withIntermediateDirectories: true)
            let visible = [
                "app.css": "body{margin:0}\n",
                "pull-to-refresh.js": "console.log('ptr');\n",
                "img/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
                "notes.txt": "plain notes\n",
                "ünï code.txt": "unicode name\n",
            ]
            for (name, text) in visible {
                try Data(text.utf8).write(to: publicDir.appendingPathComponent(name))
            }
            try Data(Self.hidden).write(to: publicDir.appendingPathComponent(".env"))
            try Data(Self.hidden).write(to: publicDir.appendingPathComponent("img/.hidden"))
            try Data(Self.secret).write(to: root.appendingPathComponent("secret.txt"))
            try fileManager.createSymbolicLink(
                at: publicDir.appendingPathComponent("escape.txt"),
                withDestinationURL: root.appendingPathComponent("secret.txt"))
            try fileManager.createSymbolicLink(
                at: publicDir.appendingPathComponent("outside"), withDestinationURL: root)
            servable = Set(visible.values.map { Array($0.utf8) })
            temporaryRoot = root

            let templates = repositoryRoot.appendingPathComponent("Templates")
            let renderer = try PageRenderer(
                library: try MustacheLibrary(directory: templates),
                localizer: try Localizer(directory: templates.appendingPathComponent("strings")))
            store = FeedStore(
                initial: GeneratorSource(seed: 7).initialItems(count: 5), source: FlakySource(), delay: .zero,
                maxItems: 40)
            self.renderer = renderer
            publicPath = publicDir.path
            router = try Self.router(store: store, renderer: renderer, publicPath: publicPath)
        }

        /// A router over a new app with empty caches.
        static func router(store: FeedStore, renderer: PageRenderer, publicPath: String) throws -> Router {
            FeedApp(
                store: store, renderer: renderer, files: try StaticFiles(directory: publicPath),
                logger: Logger(quiet: true)
            ).router()
        }

        /// Removes the temporary folder.
        func cleanUp() {
            try? FileManager.default.removeItem(at: temporaryRoot)
        }

        /// Splits `input` into a request and routes it; nil when the bytes have no request line.
        func prepare(_ input: [UInt8]) -> Prepared? {
            guard let raw = RawRequest(input) else { return nil }
            do {
                let request = try Request(
                    method: raw.method, target: raw.target, headers: raw.headers, body: raw.body,
                    remoteAddress: "127.0.0.1")
                return Prepared(
                    request: request, outcome: router.route(request), rejectedBeforeRouting: false)
            } catch {
                // As the server does: the undecoded path (libmicrohttpd's url has no query)
                // still picks the error format.
                let path = String(raw.target.prefix(while: { $0 != "?" }))
                let bare = Request(method: raw.method, path: path)
                return Prepared(
                    request: bare, outcome: .response(router.response(for: error, request: bare)),
                    rejectedBeforeRouting: true)
            }
        }

        /// The invariants every response must satisfy.
        func check(_ response: Response, for prepared: Prepared) throws(Violation) {
            let request = prepared.request
            let status = response.status
            let what = "\(request.method) \(request.path) → \(status)"
            guard (100...599).contains(status) else { throw Violation("\(what): status out of range") }
            if prepared.rejectedBeforeRouting, status != 400 {
                throw Violation("\(what): an undecodable target must be a 400")
            }
            for field in response.headers {
                guard !field.name.isEmpty,
                    !(field.name + field.value).utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 })
                else {
                    throw Violation("\(what): header \(field.name.debugDescription) has CR, LF or NUL")
                }
            }
            if status == 304 || status == 204, !response.body.isEmpty {
                throw Violation("\(what): must have no body")
            }
            let contentType = response.headers["Content-Type"] ?? ""
            let isAPI = request.path.hasPrefix("/api/") || request.path == "/healthz"
            if status >= 400 {
                if isAPI {
                    guard contentType.hasPrefix("application/json"),
                        let object = try? JSONSerialization.jsonObject(with: Data(response.body))
                            as? [String: Any],
                        let envelope = object["error"] as? [String: Any], envelope["code"] is String,
                        envelope["message"] is String
                    else {
                        throw Violation("\(what): API error is not a JSON envelope")
                    }
                } else if !contentType.hasPrefix("text/html") || response.body.isEmpty {
                    throw Violation("\(what): page error is not an HTML page")
                }
            }
            if contentType.hasPrefix("application/json"), status != 304,
                (try? JSONSerialization.jsonObject(with: Data(response.body), options: [.fragmentsAllowed]))
                    == nil
            {
                throw Violation("\(what): Content-Type is JSON but the body does not parse")
            }
            if contentType.hasPrefix("text/html"),
                Self.contains(response.body.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, Self.markup)
            {
                throw Violation("\(what): request text reached an HTML body unescaped")
            }
            if request.path.hasPrefix("/static/") {
                if Self.contains(response.body, Self.secret) || Self.contains(response.body, Self.hidden) {
                    throw Violation("\(what): served a file from outside Public/ or a hidden file")
                }
                if status == 200, !servable.contains(response.body) {
                    throw Violation("\(what): 200 body is not one of Public/'s files")
                }
            }
            try compareWithFreshApp(response, for: prepared)
            if request.path == "/api/items", status == 200 {
                guard
                    let object = try? JSONSerialization.jsonObject(with: Data(response.body))
                        as? [String: Any],
                    let items = object["items"] as? [Any],
                    items.count <= min(Int(request.queryValue("limit") ?? "") ?? 50, 100)
                else {
                    throw Violation("\(what): items payload is malformed or longer than the limit")
                }
            }
        }

        /// Caches must be invisible: an immediate GET answers the same as an app with empty caches
        /// over the same store (apart from the ETag, whose boot tag is per app).
        private func compareWithFreshApp(_ response: Response, for prepared: Prepared) throws(Violation) {
            let request = prepared.request
            guard case .response = prepared.outcome, !prepared.rejectedBeforeRouting,
                request.method == "GET" || request.method == "HEAD", request.headers["If-None-Match"] == nil
            else { return }
            let fresh: Response
            do {
                guard
                    case .response(let answer) = try Self.router(
                        store: store, renderer: renderer, publicPath: publicPath
                    )
                    .route(request)
                else {
                    throw Violation(
                        "\(request.method) \(request.path): a fresh app deferred an immediate route")
                }
                fresh = answer
            } catch let violation as Violation {
                throw violation
            } catch {
                throw Violation("cannot build a fresh app: \(error)")
            }
            var cachedHeaders = response.headers
            var freshHeaders = fresh.headers
            cachedHeaders.remove("ETag")
            freshHeaders.remove("ETag")
            guard fresh.status == response.status, freshHeaders == cachedHeaders, fresh.body == response.body
            else {
                throw Violation(
                    "\(request.method) \(request.path): cached answer \(response.status) differs from a fresh app's "
                        + "\(fresh.status) (headers equal: \(freshHeaders == cachedHeaders), "
                        + "bodies equal: \(fresh.body == response.body))")
            }
        }

        private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
            guard let first = needle.first, haystack.count >= needle.count else { return false }
            var index = 0
            while index + needle.count <= haystack.count {
                if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) {
                    return true
                }
                index += 1
            }
            return false
        }
    }
}

#if !FUZZING
    @Suite("Fuzz corpus and crash regressions replayed through the fuzz oracle")
    struct FuzzRegressionTests {
        static let fuzzFolder = Fixtures.repositoryRoot.appendingPathComponent("fuzz")

        /// `fuzz/corpus/<target>/*` and `fuzz/regressions/<target>/*`, as repository-relative names.
        static func inputs(_ target: String) -> [String] {
            ["corpus", "regressions"].flatMap { kind -> [String] in
                let folder = fuzzFolder.appendingPathComponent(kind).appendingPathComponent(target)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                return names.filter { !$0.hasPrefix(".") }.sorted().map { "\(kind)/\(target)/\($0)" }
            }
        }

        static func bytes(_ name: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: fuzzFolder.appendingPathComponent(name)))
        }

        @Test func bothCorporaArePresent() {
            #expect(Self.inputs("mustache").count >= 10)
            #expect(Self.inputs("request").count >= 10)
        }

        @Test(arguments: inputs("mustache"))
        func mustacheInput(_ name: String) throws {
            try FuzzOracle.exerciseMustache(try Self.bytes(name))
        }

        @Test func requestInputs() async throws {
            let rig = try FuzzOracle.RequestRig(repositoryRoot: Fixtures.repositoryRoot)
            defer { rig.cleanUp() }
            // One app for all inputs, in order, as in a fuzzing run (refreshes change the store).
            for name in Self.inputs("request") {
                guard let prepared = rig.prepare(try Self.bytes(name)) else { continue }
                let response: Response
                switch prepared.outcome {
                case .response(let ready): response = ready
                case .deferred(let work): response = await work()
                }
                do {
                    try rig.check(response, for: prepared)
                } catch {
                    Issue.record("\(name): \(error)")
                }
            }
        }
    }
#endif
