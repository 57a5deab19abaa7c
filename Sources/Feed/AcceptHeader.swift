import Foundation

/// Minimal `Accept` negotiation between JSON (the default) and an HTML fragment.
enum AcceptHeader {
    /// True when `text/html` is acceptable and ranked at least as high as JSON.
    static func prefersHTML(_ header: String?) -> Bool {
        guard let header else { return false }
        var html = -1.0
        var json = -1.0
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";")
            let type = pieces.first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            var quality = 1.0
            for parameter in pieces.dropFirst() {
                let trimmed = parameter.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("q="), let value = Double(trimmed.dropFirst(2)) { quality = value }
            }
            switch type {
            case "text/html": html = max(html, quality)
            case "application/json": json = max(json, quality)
            default: break
            }
        }
        return html > 0 && html >= json
    }
}
