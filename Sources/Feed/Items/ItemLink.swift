import Foundation

/// Which item URLs may become links: absolute `http`/`https` with a host, nothing else
/// (`javascript:`, `data:`, relative or malformed URLs stay plain text).
public enum ItemLink {
    /// The longest URL accepted.
    public static let maxLength = 2048

    /// Whether `url` is an absolute http(s) URL with a host, without spaces or control characters.
    public static func isSafe(_ url: String) -> Bool {
        guard url.utf8.count <= maxLength, url.utf8.allSatisfy({ $0 > 32 && $0 != 127 }),
            let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { return false }
        return true
    }
}
