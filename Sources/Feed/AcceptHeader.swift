import Foundation

/// Parsing and negotiation of `Accept`-style headers (`a;q=0.5, b`).
enum AcceptHeader {
    /// The header's entries in order, lowercased, each with its `q` (1 when absent); empty
    /// entries are skipped.
    static func entries(_ header: String) -> [(value: String, quality: Double)] {
        header.split(separator: ",").compactMap { part in
            let pieces = part.split(separator: ";")
            guard let value = pieces.first?.trimmingCharacters(in: .whitespaces).lowercased(), !value.isEmpty
            else { return nil }
            var quality = 1.0
            for parameter in pieces.dropFirst() {
                let trimmed = parameter.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("q="), let number = Double(trimmed.dropFirst(2)) { quality = number }
            }
            return (value, quality)
        }
    }

    /// True when `text/html` is acceptable and ranked at least as high as JSON (the default).
    static func prefersHTML(_ header: String?) -> Bool {
        guard let header else { return false }
        var html = -1.0
        var json = -1.0
        for entry in entries(header) {
            switch entry.value {
            case "text/html": html = max(html, entry.quality)
            case "application/json": json = max(json, entry.quality)
            default: break
            }
        }
        return html > 0 && html >= json
    }
}
