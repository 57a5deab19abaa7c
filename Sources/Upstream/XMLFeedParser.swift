import Feed
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// RSS 2.0 (and RSS 1.0/0.9x) and Atom 1.0 through FoundationXML's `XMLParser` (libxml2), with
/// external entities off and any document declaring entities refused before parsing, so
/// neither "billion laughs" expansion nor an XXE `file:///` read can happen. The encoding
/// declared in the prolog (e.g. ISO-8859-1) is honoured by the parser.
enum XMLFeedParser {
    /// The entries of an RSS or Atom document; `base` resolves relative links.
    static func parse(_ data: Data, base: URL) throws(UpstreamError) -> [UpstreamEntry] {
        try refuseEntityDeclarations(data)
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        let collector = Collector(base: base)
        parser.delegate = collector
        let finished = parser.parse()
        if let refusal = collector.refusal { throw refusal }
        // `parse()` may report success after libxml2 recovered from an error; any error fails.
        guard finished, collector.parseError == nil, parser.parserError == nil else {
            let error = collector.parseError ?? parser.parserError
            let reason = error.map { "\($0.localizedDescription)" } ?? "unknown error"
            throw UpstreamError(
                "the feed is not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber): \(reason))"
            )
        }
        guard collector.format != nil else {
            throw UpstreamError("the XML document is neither RSS nor Atom (root <\(collector.root ?? "?")>)")
        }
        return collector.entries
    }

    /// Entity declarations (`<!ENTITY`) only serve expansion attacks in a feed; UTF-16 and
    /// UTF-32 documents are refused too, since the scan reads ASCII-compatible bytes.
    static func refuseEntityDeclarations(_ data: Data) throws(UpstreamError) {
        let head = Array(data.prefix(4))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.contains(0) {
            throw UpstreamError("the feed is UTF-16 or UTF-32 XML, which is not supported")
        }
        let needle = Array("<!ENTITY".utf8)
        let found = data.withUnsafeBytes { raw -> Bool in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count >= needle.count else { return false }
            for start in 0...(bytes.count - needle.count) where bytes[start] == 60 {
                if (0..<needle.count).allSatisfy({ bytes[start + $0] == needle[$0] }) { return true }
            }
            return false
        }
        if found {
            throw UpstreamError("the feed declares XML entities (<!ENTITY>), which are refused")
        }
    }

    enum Format {
        case rss
        case atom
    }

    /// Accumulates one entry's fields while the parser walks an `<item>` or `<entry>`.
    private final class Collector: NSObject, XMLParserDelegate {
        let base: URL
        var root: String?
        var format: Format?
        var entries: [UpstreamEntry] = []
        var refusal: UpstreamError?
        var parseError: (any Error)?
        private var inEntry = false
        private var depthInEntry = 0
        private var field: String?
        private var fieldDepth = 0
        private var fieldIsHTML = false
        private var text = ""
        private var values: [String: String] = [:]
        private var htmlFields: Set<String> = []
        private var link: String?
        private var guidIsPermaLink = false

        init(base: URL) {
            self.base = base
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if root == nil {
                root = elementName
                switch elementName {
                case "rss", "rdf:RDF": format = .rss
                case "feed": format = .atom
                default: format = nil
                }
            }
            guard let format else { return }
            if !inEntry {
                if (format == .rss && elementName == "item") || (format == .atom && elementName == "entry") {
                    inEntry = true
                    depthInEntry = 0
                    values = [:]
                    htmlFields = []
                    link = nil
                    guidIsPermaLink = false
                }
                return
            }
            depthInEntry += 1
            if field != nil {
                fieldDepth += 1
                return
            }
            if format == .atom, elementName == "link" {
                let relation = attributes["rel"] ?? "alternate"
                if relation == "alternate", link == nil, let href = attributes["href"] { link = href }
                return
            }
            guard depthInEntry == 1 else { return }
            if format == .rss, elementName == "guid" {
                guidIsPermaLink = attributes["isPermaLink"] != "false"
            }
            field = elementName
            fieldDepth = 0
            text = ""
            let type = attributes["type"]?.lowercased()
            fieldIsHTML =
                format == .rss
                ? ["title", "description", "content:encoded"].contains(elementName)
                : (type == "html" || type == "text/html")
        }

        func parser(
            _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
            qualifiedName: String?
        ) {
            guard inEntry else { return }
            if depthInEntry == 0 {
                finishEntry()
                inEntry = false
                return
            }
            depthInEntry -= 1
            guard let name = field else { return }
            if fieldDepth > 0 {
                fieldDepth -= 1
                return
            }
            if values[name] == nil {
                values[name] = text
                if fieldIsHTML { htmlFields.insert(name) }
            }
            field = nil
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if field != nil, text.utf8.count < 1 << 20 { text += string }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if field != nil, text.utf8.count < 1 << 20 { text += String(decoding: CDATABlock, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if self.parseError == nil { self.parseError = parseError }
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?)
        {
            refuse(parser, "the feed declares XML entities, which are refused")
        }

        func parser(
            _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?,
            systemID: String?
        ) {
            refuse(parser, "the feed declares an external XML entity, which is refused")
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            // Called for an entity the document uses but never declares (one an external DTD
            // would declare: such DTDs are never loaded, FoundationXML's policy being "never").
            refuse(parser, "the feed uses the undeclared entity &\(name); (external DTDs are never loaded)")
            return nil
        }

        private func refuse(_ parser: XMLParser, _ message: String) {
            if refusal == nil { refusal = UpstreamError(message) }
            parser.abortParsing()
        }

        private func value(_ name: String, limit: Int) -> String? {
            guard let raw = values[name] else { return nil }
            let text =
                htmlFields.contains(name)
                ? PlainText.from(html: raw, limit: limit) : PlainText.collapse(raw, limit: limit)
            return text.isEmpty ? nil : text
        }

        private func finishEntry() {
            let rss = format == .rss
            // RSS: <link>, else a permalink <guid> (isPermaLink defaults to true) that is an
            // absolute http(s) URL: a bare GUID is not resolved against the feed as a path.
            let guid = values["guid"]?.trimmingCharacters(in: .whitespacesAndNewlines)
            let rssLink =
                values["link"] ?? (guidIsPermaLink ? guid.flatMap { ItemLink.isSafe($0) ? $0 : nil } : nil)
            let rawLink = rss ? rssLink?.trimmingCharacters(in: .whitespacesAndNewlines) : link
            let url = rawLink.flatMap { FeedEntries.absoluteLink($0, base: base) }
            // RSS: content:encoded over description, pubDate (RFC 822) over dc:date; Atom:
            // content over summary, published over updated (RFC 3339). Either date form is read.
            let (fullText, summary) = rss ? ("content:encoded", "description") : ("content", "summary")
            let (firstDate, secondDate) = rss ? ("pubDate", "dc:date") : ("published", "updated")
            let body =
                value(fullText, limit: FeedEntries.maxBody) ?? value(summary, limit: FeedEntries.maxBody)
            let date = (values[firstDate] ?? values[secondDate]).flatMap {
                FeedDate.rfc822($0) ?? FeedDate.rfc3339($0)
            }
            let id = value(rss ? "guid" : "id", limit: 10_000)
            if let entry = FeedEntries.make(
                id: id, title: value("title", limit: FeedEntries.maxTitle), body: body ?? "", url: url,
                date: date)
            {
                entries.append(entry)
            }
        }
    }
}
