/// `If-None-Match` evaluation (weak comparison, lists and `*`), per RFC 9110 §13.1.2.
public enum ConditionalRequest {
    /// Whether the header matches `etag`, i.e. the client's copy is current.
    public static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let target = strip(etag[...])
        for candidate in header.split(separator: ",") {
            var tag = candidate
            while let first = tag.first, first == " " || first == "\t" { tag = tag.dropFirst() }
            while let last = tag.last, last == " " || last == "\t" { tag = tag.dropLast() }
            if tag == "*" || strip(tag) == target { return true }
        }
        return false
    }

    private static func strip(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
