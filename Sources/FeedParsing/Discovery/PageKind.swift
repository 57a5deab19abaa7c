import Foundation
import HTTPClient

/// Whether a body that is not a feed is an HTML page worth searching for `<link>`s.
enum PageKind {
    /// By its `Content-Type` (`text/html`, `application/xhtml+xml`), or, when that says nothing
    /// useful (missing, `text/plain`, `application/octet-stream`), by its first kilobyte.
    static func isHTML(_ body: FetchedBody) -> Bool {
        let media = body.contentType?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        switch media {
        case "text/html", "application/xhtml+xml": return true
        case nil, "", "text/plain", "application/octet-stream": break
        default: return false
        }
        let start = String(decoding: body.data.prefix(1024), as: UTF8.self).lowercased()
        return ["<!doctype html", "<html", "<head", "<link"].contains { start.contains($0) }
    }
}
