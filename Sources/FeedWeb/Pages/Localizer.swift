public import Feed
public import Foundation
import HTTPServer

/// UI strings per language, loaded from `strings/<lang>.json` next to the templates so that
/// translators edit files, not code.
public struct Localizer: Sendable {
    /// Supported language codes, in preference order for ties (`en` first).
    public let languages: [String]
    private let tables: [String: [String: String]]

    /// The fallback language.
    public static let defaultLanguage = "en"

    /// Loads every `*.json` file in `directory`; each must be a flat object of strings with the
    /// same keys as `en.json`, which must exist.
    public init(directory: URL) throws(FeedError) {
        let files: [URL]
        do {
            files = try FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: nil
            )
            .filter { $0.pathExtension == "json" }
        } catch {
            throw FeedError("cannot read strings folder \(directory.path)")
        }
        var tables: [String: [String: String]] = [:]
        for file in files {
            let code = file.deletingPathExtension().lastPathComponent.lowercased()
            guard let data = try? Data(contentsOf: file),
                let table = try? JSONDecoder().decode([String: String].self, from: data)
            else {
                throw FeedError("strings file \(file.path) must be a JSON object of strings")
            }
            tables[code] = table
        }
        try self.init(tables: tables)
    }

    /// Creates a localizer from in-memory tables (same rules as loading from a folder).
    public init(tables: [String: [String: String]]) throws(FeedError) {
        guard let reference = tables[Self.defaultLanguage] else {
            throw FeedError("strings for the default language '\(Self.defaultLanguage)' are missing")
        }
        for (code, table) in tables {
            let missing = Set(reference.keys).subtracting(table.keys)
            if let key = missing.sorted().first {
                throw FeedError("strings file \(code).json is missing the key '\(key)'")
            }
        }
        self.tables = tables
        languages = [Self.defaultLanguage] + tables.keys.filter { $0 != Self.defaultLanguage }.sorted()
    }

    /// The table for `language` (falls back to English).
    public func strings(for language: String) -> [String: String] {
        tables[language] ?? tables[Self.defaultLanguage] ?? [:]
    }

    /// Whether `code` is supported.
    public func supports(_ code: String) -> Bool {
        tables[code] != nil
    }

    /// The best supported language for an `Accept-Language` header, honouring q-values and
    /// matching `tr-TR` to `tr`; English when nothing matches.
    public func negotiate(acceptLanguage header: String?) -> String {
        guard let header else { return Self.defaultLanguage }
        var best: (code: String, quality: Double)?
        for (position, entry) in AcceptHeader.entries(header).enumerated() {
            // Earlier entries win ties, as browsers list them in preference order.
            let adjusted = entry.quality - Double(position) * 1e-6
            let primary = String(entry.value.split(separator: "-").first ?? "")
            guard entry.quality > 0, supports(primary) else { continue }
            if best == nil || adjusted > best!.quality { best = (primary, adjusted) }
        }
        return best?.code ?? Self.defaultLanguage
    }

    /// Text direction for a language; all four shipped languages are left-to-right.
    public func direction(for language: String) -> String {
        ["ar", "he", "fa", "ur"].contains(language) ? "rtl" : "ltr"
    }
}
