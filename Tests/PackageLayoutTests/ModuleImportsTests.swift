import Foundation
import Testing

/// The module map, checked: every module's imports and every dependency `Package.swift`
/// declares must be in ``ModuleImportsTests/allowed``; every edge must point to a lower layer,
/// or to a module before it in its own layer, or be one of the few
/// ``ModuleImportsTests/sideways`` edges, each with its reason; and each C library must be
/// wrapped by exactly one module. The README's layout table is this table in words; change
/// both together.
@Suite("Module map")
struct ModuleImportsTests {
    /// A module's layer and the modules of this package it may import.
    struct Entry {
        /// The layer (the whole part) and the module's place within it: within a layer a module
        /// may build on one before it (River on Feed, FeedWeb on EventStreams).
        let layer: Double
        let imports: Set<String>
    }

    /// Layer 0: the C system libraries. 1: base (no C, no HTTP). 2: one module per C library.
    /// 3: domain. 4: surfaces. 5: the executable. FeedParsing is in the domain although it is
    /// the one module that sees libxml2: it turns bytes into entries under the feed model's rules
    /// (FeedItem.maxIDLength, ItemLink, SourceKey, JSONWriter for the hints), so it builds on
    /// Feed; it also builds on HTTPClient (a parser's failure is an UpstreamError of kind
    /// .content, and the HTTP client parses the same RFC 822 dates as RSS, FeedDate).
    static let allowed: [String: Entry] = [
        "Logging": Entry(layer: 1, imports: []),
        "Metrics": Entry(layer: 1, imports: []),
        "Mustache": Entry(layer: 1, imports: []),
        "HTTPServer": Entry(layer: 2, imports: ["CMicroHTTPD", "Logging", "Metrics"]),
        "Compression": Entry(layer: 2, imports: ["CZlib", "CBrotli"]),
        "HTTPClient": Entry(layer: 2, imports: ["CCurl"]),
        "EncodingDetection": Entry(layer: 2, imports: ["CUchardet"]),
        "FeedParsing": Entry(layer: 3.05, imports: ["CLibXML2", "EncodingDetection", "Feed", "HTTPClient"]),
        "RedisClient": Entry(layer: 2, imports: ["CHiredis"]),
        "Images": Entry(layer: 2, imports: ["CVips"]),
        "Allocator": Entry(layer: 2, imports: ["CMalloc"]),
        "Database": Entry(layer: 2, imports: ["CSQLite"]),
        "Secrets": Entry(layer: 2, imports: ["CSodium"]),
        "Feed": Entry(layer: 3, imports: ["Metrics"]),
        "River": Entry(layer: 3.1, imports: ["Feed", "FeedParsing", "HTTPClient", "Logging", "Metrics"]),
        "RedisFeed": Entry(layer: 3.1, imports: ["Feed", "Logging", "RedisClient"]),
        "Reading": Entry(layer: 3.05, imports: ["Feed"]),
        "Storage": Entry(layer: 3.1, imports: ["Database", "Feed", "Reading"]),
        "Owner": Entry(layer: 3.2, imports: ["Logging", "Secrets", "Storage"]),
        "EventStreams": Entry(layer: 4, imports: ["HTTPServer"]),
        "FeedWeb": Entry(
            layer: 4.1,
            imports: [
                "Compression", "EventStreams", "Feed", "HTTPServer", "Logging", "Metrics", "Mustache",
                "Owner", "Reading",
            ]),
        "Thumbnails": Entry(
            layer: 4.1,
            imports: ["Allocator", "Feed", "HTTPClient", "HTTPServer", "Images", "Logging", "Metrics"]),
        "pullrefresh": Entry(
            layer: 5,
            imports: [
                "Allocator", "Feed", "FeedParsing", "FeedWeb", "HTTPClient", "HTTPServer", "Images",
                "Logging",
                "Metrics", "Mustache", "RedisClient", "RedisFeed", "River", "Thumbnails", "Database",
                "Storage", "Owner", "Reading",
            ]),
    ]

    /// Edges that do not point to a lower layer, each with why it is allowed (none today: keep
    /// it that way, or say here why not).
    static let sideways: [String: String] = [:]

    /// Modules of the toolchain any module may import.
    static let toolchain: Set<String> = ["Foundation", "Glibc", "Dispatch", "Synchronization"]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The modules under Sources/ with Swift files, and the modules each file imports.
    static func sourceImports() throws -> [String: [(file: String, module: String)]] {
        let sources = root.appendingPathComponent("Sources")
        let pattern = try Regex(#"^(?:@testable |public |package |internal )?import (?:\w+ )?(\w+)"#)
        var found: [String: [(file: String, module: String)]] = [:]
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appendingPathComponent(module)
            guard let walker = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let path as String in walker where path.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
                var imports = found[module] ?? []
                for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                    if let match = line.firstMatch(of: pattern), let name = match.output[1].substring {
                        imports.append((file: "Sources/\(module)/\(path)", module: String(name)))
                    }
                }
                found[module] = imports
            }
        }
        return found
    }

    /// Each target's declared dependencies in Package.swift (system libraries have none).
    static func declaredDependencies() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("//") }.joined(separator: " ")
        let target = try Regex(
            #"\.(target|executableTarget|testTarget)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#
        )
        let quoted = try Regex(#""([^"]+)""#)
        var declared: [String: Set<String>] = [:]
        for match in flat.matches(of: target) {
            guard let name = match.output[2].substring else { continue }
            let list = match.output[3].substring.map(String.init) ?? ""
            declared[String(name)] = Set(
                list.matches(of: quoted).compactMap { $0.output[1].substring.map(String.init) })
        }
        return declared
    }

    @Test func everyImportIsAllowed() throws {
        let found = try Self.sourceImports()
        #expect(!found.isEmpty)
        var wrong: [String] = []
        for (module, imports) in found {
            guard let entry = Self.allowed[module] else {
                wrong.append("\(module): not in the module map")
                continue
            }
            for (file, imported) in imports
            where !entry.imports.contains(imported) && !Self.toolchain.contains(imported) {
                wrong.append("\(file) imports \(imported), which \(module) may not")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.sorted().joined(separator: "\n"))")
    }

    @Test func packageDeclaresTheMapExactly() throws {
        let declared = try Self.declaredDependencies()
        for (module, entry) in Self.allowed {
            guard let dependencies = declared[module] else {
                Issue.record("Package.swift has no target \(module)")
                continue
            }
            let extra = dependencies.subtracting(entry.imports)
            let missing = entry.imports.subtracting(dependencies)
            #expect(extra.isEmpty, "Package.swift: \(module) depends on \(extra.sorted()), not in the map")
            #expect(missing.isEmpty, "Package.swift: \(module) lacks \(missing.sorted()) from the map")
        }
        // Every Swift module under Sources/ is in the map (C modules have no Swift files).
        #expect(Set(try Self.sourceImports().keys) == Set(Self.allowed.keys))
    }

    @Test func dependenciesPointDown() {
        for (module, entry) in Self.allowed {
            for imported in entry.imports {
                let layer = Self.allowed[imported]?.layer ?? 0
                let edge = "\(module) -> \(imported)"
                #expect(layer < entry.layer || Self.sideways[edge] != nil, "\(edge) does not point down")
            }
        }
        for edge in Self.sideways.keys {
            let parts = edge.components(separatedBy: " -> ")
            #expect(Self.allowed[parts[0]]?.imports.contains(parts[1]) == true, "\(edge) is not in the map")
        }
    }

    @Test func eachCLibraryHasOneSwiftModule() {
        let wrappers = Self.allowed.filter { $0.key != "pullrefresh" }
            .flatMap { module, entry in entry.imports.filter { Self.allowed[$0] == nil }.map { ($0, module) }
            }
        let byLibrary = Dictionary(grouping: wrappers, by: \.0)
        for (library, modules) in byLibrary {
            #expect(modules.count == 1, "\(library) is imported by \(modules.map(\.1).sorted())")
        }
        #expect(Set(byLibrary.keys).count >= 8)
    }

    /// The README's layout table, read back: each row's module (the first code span of the
    /// Module column) and the modules of this package in its "May import" column.
    static func readmeLayout() throws -> [String: Set<String>] {
        let text = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let code = try Regex(#"`([A-Za-z][A-Za-z0-9]*)`"#)
        var rows: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            // | Layer | Module | Its one job | May import |: six pieces with the outer bars.
            guard cells.count == 6, let module = cells[2].firstMatch(of: code)?.output[1].substring,
                allowed[String(module)] != nil
            else { continue }
            let imports = cells[4].matches(of: code).compactMap { $0.output[1].substring.map(String.init) }
            rows[String(module)] = Set(imports)
        }
        return rows
    }

    @Test func theReadmeTableIsThisMap() throws {
        let rows = try Self.readmeLayout()
        #expect(Set(rows.keys) == Set(Self.allowed.keys), "README layout table: modules differ from the map")
        for (module, entry) in Self.allowed {
            #expect(
                rows[module] == entry.imports, "README layout table: \(module)'s imports differ from the map")
        }
    }
}
