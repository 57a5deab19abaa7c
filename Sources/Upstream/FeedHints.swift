import Feed
import Foundation

/// What a feed says about itself besides its items: its title and site (the river's labels),
/// and RSS's scheduling hints (`<ttl>`, `<skipHours>`, `<skipDays>`).
///
/// Read by a bounded scan of the document's head (the part before its first item, at most
/// 64 KiB), not by the item parser: the head is where RSS and Atom put channel elements, and
/// the scan stays independent of how items are parsed. Values are plain text; anything odd is
/// ignored (hints are optional by nature).
public struct FeedHints: Sendable, Equatable, Codable {
    /// The feed's own title.
    public var title: String?
    /// The feed's web site: RSS channel `<link>`, Atom `<link rel="alternate">`, JSON Feed
    /// `home_page_url` (absolute http/https only).
    public var siteURL: String?
    /// RSS `<ttl>`: minutes the feed may be cached.
    public var ttlMinutes: Int?
    /// RSS `<skipHours>`: hours (0–23, GMT) in which it should not be fetched.
    public var skipHours: [Int] = []
    /// RSS `<skipDays>`: days (1 = Sunday … 7 = Saturday, as `Calendar` counts) not to fetch on.
    public var skipDays: [Int] = []

    /// Creates hints.
    public init(
        title: String? = nil, siteURL: String? = nil, ttlMinutes: Int? = nil, skipHours: [Int] = [],
        skipDays: [Int] = []
    ) {
        self.title = title
        self.siteURL = siteURL
        self.ttlMinutes = ttlMinutes
        self.skipHours = skipHours
        self.skipDays = skipDays
    }

    /// Writes the hints as `JSONEncoder` would (keys sorted, absent values left out): part of
    /// ``SourceState/encoded()``.
    func write(into writer: inout JSONWriter) {
        writer.raw("{")
        if let siteURL {
            writer.raw("\"siteURL\":")
            writer.string(siteURL)
            writer.raw(",")
        }
        writer.raw("\"skipDays\":")
        Self.write(skipDays, into: &writer)
        writer.raw(",\"skipHours\":")
        Self.write(skipHours, into: &writer)
        if let title {
            writer.raw(",\"title\":")
            writer.string(title)
        }
        if let ttlMinutes {
            writer.raw(",\"ttlMinutes\":")
            writer.number(ttlMinutes)
        }
        writer.raw("}")
    }

    private static func write(_ numbers: [Int], into writer: inout JSONWriter) {
        writer.raw("[")
        for (position, number) in numbers.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.number(number)
        }
        writer.raw("]")
    }

    static let headLimit = 64 << 10
    private static let dayNames = [
        "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    ]

    /// The hints of a feed document in either format.
    public static func read(_ data: Data, format: FeedDocument.Format, base: URL) -> FeedHints {
        switch format {
        case .json: json(data, base: base)
        case .xml: xml(data, base: base)
        }
    }

    static func json(_ data: Data, base: URL) -> FeedHints {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            return FeedHints()
        }
        var hints = FeedHints()
        if let title = object["title"] as? String { hints.title = clean(title) }
        if let home = object["home_page_url"] as? String {
            hints.siteURL = FeedEntries.absoluteLink(home, base: base)
        }
        return hints
    }

    static func xml(_ data: Data, base: URL) -> FeedHints {
        let head = String(decoding: data.prefix(headLimit), as: UTF8.self)
        let end = [head.range(of: "<item"), head.range(of: "<entry")].compactMap { $0?.lowerBound }.min()
        let channel = String(head[..<(end ?? head.endIndex)])
        var hints = FeedHints()
        hints.title = firstText(of: "title", in: channel).map(clean).flatMap { $0.isEmpty ? nil : $0 }
        if let link = firstText(of: "link", in: channel), !link.isEmpty {
            hints.siteURL = FeedEntries.absoluteLink(link, base: base)
        } else if let href = alternateHref(in: channel) {
            hints.siteURL = FeedEntries.absoluteLink(href, base: base)
        }
        if let ttl = firstText(of: "ttl", in: channel).flatMap({ Int($0) }), (1...10_080).contains(ttl) {
            hints.ttlMinutes = ttl
        }
        if let hours = firstText(of: "skipHours", in: channel) {
            hints.skipHours = Set(allTexts(of: "hour", in: hours).compactMap { Int($0) }.map { $0 % 24 })
                .filter { $0 >= 0 }.sorted()
        }
        if let days = firstText(of: "skipDays", in: channel) {
            hints.skipDays = Set(
                allTexts(of: "day", in: days).compactMap { dayNames.firstIndex(of: $0.lowercased()) }.map {
                    $0 + 1
                }
            ).sorted()
        }
        // Every hour skipped would mean never fetching: ignore such a feed's wish.
        if hints.skipHours.count == 24 { hints.skipHours = [] }
        if hints.skipDays.count == 7 { hints.skipDays = [] }
        return hints
    }

    /// Element text as plain text: CDATA sections are literal text (escaped before the HTML
    /// pass, which would otherwise drop them as tags).
    private static func clean(_ text: String) -> String {
        var literal = ""
        var rest = text[...]
        while let open = rest.range(of: "<![CDATA[") {
            literal += rest[..<open.lowerBound]
            let inside = rest[open.upperBound...]
            let close = inside.range(of: "]]>")
            literal += String(inside[..<(close?.lowerBound ?? inside.endIndex)])
                .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            rest = close.map { inside[$0.upperBound...] } ?? ""
        }
        literal += rest
        return PlainText.from(html: literal, limit: FeedEntries.maxTitle)
    }

    /// The text of the first `<name …>text</name>` (CDATA unwrapped, trimmed).
    private static func firstText(of name: String, in text: String) -> String? {
        allTexts(of: name, in: text, limit: 1).first
    }

    private static func allTexts(of name: String, in text: String, limit: Int = 64) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while found.count < limit, let open = rest.range(of: "<\(name)") {
            let after = rest[open.upperBound...]
            // `<title>` or `<title type="html">`, not `<titles>`.
            guard let next = after.first, next == ">" || next == " " || next == "\t" || next == "\n" else {
                rest = after
                continue
            }
            guard let tagEnd = after.firstIndex(of: ">") else { break }
            // A self-closing `<link href="…"/>` has no text.
            if tagEnd > after.startIndex, after[after.index(before: tagEnd)] == "/" {
                rest = after[tagEnd...]
                continue
            }
            let body = after[after.index(after: tagEnd)...]
            guard let close = body.range(of: "</\(name)>") else { break }
            var value = String(body[..<close.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
            if value.hasPrefix("<![CDATA["), value.hasSuffix("]]>") {
                value = String(value.dropFirst(9).dropLast(3)).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            found.append(value)
            rest = body[close.upperBound...]
        }
        return found
    }

    /// Atom: the `href` of the first `<link>` whose `rel` is absent or `alternate`.
    private static func alternateHref(in text: String) -> String? {
        var rest = text[...]
        while let open = rest.range(of: "<link") {
            guard let end = rest[open.upperBound...].firstIndex(of: ">") else { return nil }
            let tag = String(rest[open.upperBound..<end])
            rest = rest[end...]
            let rel = attribute("rel", in: tag)
            guard rel == nil || rel == "alternate", let href = attribute("href", in: tag) else { continue }
            return PlainText.from(html: href, limit: ItemLink.maxLength)
        }
        return nil
    }

    private static func attribute(_ name: String, in tag: String) -> String? {
        for quote in ["\"", "'"] {
            guard let start = tag.range(of: " \(name)=\(quote)") else { continue }
            let value = tag[start.upperBound...]
            guard let end = value.firstIndex(of: Character(quote)) else { return nil }
            return String(value[..<end])
        }
        return nil
    }
}
