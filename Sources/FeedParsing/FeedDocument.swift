public import Foundation
public import HTTPClient

/// Bytes and their `Content-Type` → entries, without sockets: the format is recognised from
/// both. A declared type must be a feed, JSON or XML type (or say nothing, `text/plain`,
/// `application/octet-stream`), and the content must match it: an HTML page (a login wall, an
/// error page) or JSON served as XML is refused with a message, never guessed at.
public enum FeedDocument {
    /// The recognised formats.
    public enum Format: String, Sendable {
        /// JSON Feed 1.x, or our own `{"items": […]}`.
        case json
        /// RSS or Atom (the root element decides).
        case xml
    }

    /// The entries of `data`, in feed order; `base` (the URL after redirects) resolves relative
    /// links. A feed without a usable item is an error.
    public static func parse(_ data: Data, contentType: String?, base: URL) throws(UpstreamError)
        -> [UpstreamEntry]
    {
        try read(data, contentType: contentType, base: base).entries
    }

    /// The entries of `data` and, for XML that libxml2 had to recover, a note saying what it
    /// recovered from (see docs/feeds.md for what is recovered and what is refused).
    /// `Content-Type`'s `charset` is used only when the document declares no encoding itself.
    public static func read(_ data: Data, contentType: String?, base: URL) throws(UpstreamError)
        -> FeedReading
    {
        let reading = try readFeed(data, contentType: contentType, base: base).reading
        // An upstream that suddenly lists nothing is far more often broken than emptied: the
        // reload fails and the last good version stays.
        guard !reading.entries.isEmpty else {
            throw UpstreamError("the feed has no items with a title or text")
        }
        return reading
    }

    /// What the parser of `data`'s format reads in it, items or not: discovery takes a
    /// new RSS or Atom feed without items yet for a feed (``FeedFinder``).
    static func readFeed(_ data: Data, contentType: String?, base: URL) throws(UpstreamError)
        -> (format: Format, reading: FeedReading)
    {
        switch try format(of: data, contentType: contentType) {
        case .json:
            return (.json, try JSONFeedParser.read(data, base: base))
        case .xml:
            return (.xml, try XMLFeedParser.read(data, charset: charset(of: contentType), base: base))
        }
    }

    /// The `charset` parameter of a `Content-Type`, if any.
    static func charset(of contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset"
            else {
                continue
            }
            return parts[1].trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\"'")))
        }
        return nil
    }

    /// Which parser reads `data`.
    public static func format(of data: Data, contentType: String?) throws(UpstreamError) -> Format {
        let media = contentType?.split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        let sniffed = sniff(data)
        let declared: Format?
        switch media {
        case nil, "", "text/plain", "application/octet-stream", "binary/octet-stream":
            declared = nil
        case "application/feed+json", "application/json":
            declared = .json
        case "application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/xml",
            "text/xml":
            declared = .xml
        case let other?:
            if other.hasSuffix("+json") {
                declared = .json
            } else if other.hasSuffix("+xml") {
                declared = .xml
            } else {
                throw UpstreamError("the upstream answered \(other), not a feed (JSON Feed, RSS or Atom)")
            }
        }
        guard let sniffed else {
            throw UpstreamError(
                data.isEmpty
                    ? "the upstream answered an empty body" : "the upstream's body is neither JSON nor XML")
        }
        if let declared, declared != sniffed {
            throw UpstreamError(
                "the upstream answered \(media ?? "") but the body is \(sniffed == .json ? "JSON" : "XML")")
        }
        return sniffed
    }

    /// JSON starts with `{` or `[`, XML with `<`, after a BOM and whitespace.
    private static func sniff(_ data: Data) -> Format? {
        var bytes = data.prefix(512)[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let first = bytes.first(where: { ![9, 10, 13, 32].contains($0) }) else { return nil }
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        case UInt8(ascii: "<"): return .xml
        default: return nil
        }
    }
}
