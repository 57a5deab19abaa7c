import Foundation

/// Reading the page's markup the way a browser without JavaScript would.
enum PageLinks {
    /// The `href` of the "Older items" link, `&amp;` decoded; nil when there is none.
    static func olderHref(_ html: String) -> String? {
        guard let marker = html.range(of: "class=\"feed-older\" href=\"") else { return nil }
        let rest = html[marker.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return rest[..<end].replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The `data-item-id`s in document order.
    static func itemIDs(_ html: String) -> [Int] {
        html.components(separatedBy: "data-item-id=\"").dropFirst().compactMap {
            Int($0.prefix { $0 != "\"" })
        }
    }
}
