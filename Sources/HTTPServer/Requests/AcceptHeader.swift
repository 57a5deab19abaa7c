import Foundation

/// Parsing and negotiation of `Accept`-style headers (`a;q=0.5, b`).
public enum AcceptHeader {
    /// The header's entries in order, lowercased, each with its `q` (1 when absent); empty
    /// entries are skipped.
    public static func entries(_ header: String) -> [(value: String, quality: Double)] {
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
    public static func prefersHTML(_ header: String?) -> Bool {
        // GET /api/items asks this on every request: most Accept headers (JSON clients, `*/*`)
        // never mention html, and a byte scan settles those without parsing.
        guard let header, mentionsHTML(header) else { return false }
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

    /// Whether `html` occurs in the header, ASCII case-insensitively.
    private static func mentionsHTML(_ header: String) -> Bool {
        let word: (UInt8, UInt8, UInt8, UInt8) = (104, 116, 109, 108)  // h t m l
        var matched = 0
        for byte in header.utf8 {
            let lower = byte | 0x20
            let expected: UInt8
            switch matched {
            case 0: expected = word.0
            case 1: expected = word.1
            case 2: expected = word.2
            default: expected = word.3
            }
            if lower == expected {
                matched += 1
                if matched == 4 { return true }
            } else {
                matched = lower == word.0 ? 1 : 0
            }
        }
        return false
    }
}
