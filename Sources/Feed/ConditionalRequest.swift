/// `If-None-Match` evaluation (weak comparison, lists and `*`), per RFC 9110 §13.1.2.
public enum ConditionalRequest {
    /// Whether the header matches `etag`, i.e. the client's copy is current.
    public static func matches(_ header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let target = strip(etag[...])
        for candidate in header.split(separator: ",") {
            let trimmed = candidate.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: {
                $0 == " " || $0 == "\t"
            })
            let tag = Substring(String(trimmed.reversed()))
            if tag == "*" || strip(tag) == target { return true }
        }
        return false
    }

    private static func strip(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
