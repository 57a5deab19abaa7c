/// Where a sign-in may send the browser next (`next`): only a path on this site, so the form
/// cannot be used to bounce someone to another site after they typed their password.
enum LocalRedirect {
    /// The longest `next` kept; a longer one is not a link anyone followed here.
    static let maxLength = 2048

    /// `next` when it is a local path: it starts with one `/` not followed by `/` or `\`
    /// (browsers read both `//host` and `/\host` as another host), has no control characters,
    /// spaces or backslashes anywhere (some browsers skip tabs and newlines, or read `\` as
    /// `/`), and fits ``maxLength``. Anything else, a scheme (`https:`, `javascript:`)
    /// included, gives `/`.
    static func target(_ next: String?) -> String {
        guard let next, isLocal(next) else { return "/" }
        return next
    }

    static func isLocal(_ next: String) -> Bool {
        let bytes = Array(next.utf8)
        guard bytes.count <= maxLength, bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return false }
        // Bytes a browser might drop or reinterpret, and anything outside printable ASCII
        // (a `Location` field carries ASCII; the path's own escapes stay escaped).
        return !bytes.contains { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\\") }
    }
}
