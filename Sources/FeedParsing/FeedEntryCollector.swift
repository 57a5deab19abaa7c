import Feed
import Foundation
import HTTPClient

/// Turns the events of an RSS or Atom document into entries: the root element decides the
/// format, each `item`/`entry` gathers the first occurrence of each field it contains (direct
/// children, and those inside a `media:group`), and pictures from any depth. The feed's own
/// elements outside the items give its ``hints``: title, site, and RSS's `<ttl>`,
/// `<skipHours>` and `<skipDays>` — read by the same parser, namespaces and charset as the items.
final class FeedEntryCollector: XMLEventHandler {
    /// The document's format, once its root element is known (nil: neither RSS nor Atom).
    enum Format {
        case rss
        case atom
    }

    /// A field by vocabulary and local name: `dc:title` and `title` are different fields.
    struct Key: Hashable {
        let vocabulary: FeedVocabulary
        let local: String
    }

    /// A field's text and the attributes of its element.
    struct Field {
        var text: String
        var attributes: [XMLAttribute]
    }

    /// Where an item's picture came from, best first (the issue's order).
    enum ImageSource: Int, Comparable {
        case mediaThumbnail
        case mediaContent
        case enclosure
        case itunesImage
        case contentImage

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    let base: URL
    private(set) var root: XMLName?
    private(set) var format: Format?
    private(set) var entries: [UpstreamEntry] = []
    /// Set when the document must be refused whatever else it holds.
    private(set) var refusal: UpstreamError?
    private var inEntry = false
    /// The elements open inside the current entry, innermost last.
    private var open: [XMLName] = []
    private var fields: [Key: Field] = [:]
    private var entryAttributes: [XMLAttribute] = []
    private var atomLink: String?
    private var images: [ImageSource: String] = [:]
    /// The entry's first enclosure (any type), for a title when it has none.
    private var enclosure: String?
    /// The field being read, and how many elements were open inside the entry when it started.
    private var current: (key: Key, attributes: [XMLAttribute], depth: Int)?
    private var text = ""
    /// What the feed says about itself; the first occurrence of each.
    private(set) var hints = FeedHints()
    /// The elements open outside any entry, below the root, innermost last.
    private var head: [XMLName] = []
    /// The feed-level element being read, and how many head elements were open when it started.
    private var headField: (local: String, attributes: [XMLAttribute], depth: Int)?
    private var headText = ""
    /// A hint is a short value: more text than this is not one (and is not kept).
    private static let maxHintBytes = 4096

    init(base: URL) {
        self.base = base
    }

    func startElement(_ name: XMLName, attributes: [XMLAttribute]) {
        let vocabulary = FeedVocabulary(namespace: name.namespace)
        guard root != nil else {
            recogniseRoot(name, vocabulary: vocabulary, attributes: attributes)
            return
        }
        guard let format else { return }
        guard inEntry else {
            let entryName = format == .rss ? "item" : "entry"
            let isFeedVocabulary = format == .rss ? vocabulary == .rss : isAtomVocabulary(vocabulary)
            if name.local == entryName, isFeedVocabulary {
                beginEntry(attributes)
            } else {
                startHeadElement(name, vocabulary: vocabulary, attributes: attributes)
            }
            return
        }
        defer { open.append(name) }
        noteImage(name, vocabulary: vocabulary, attributes: attributes)
        if isAtomVocabulary(vocabulary), name.local == "link" {
            // The entry's own link: not one of a <source> (the feed it was copied from).
            let relation = attributes.value(of: "rel") ?? "alternate"
            if relation == "alternate", atomLink == nil, open.isEmpty {
                atomLink = attributes.value(of: "href")
            }
            return
        }
        // A media:group holds no text of its own: its children count as the entry's.
        guard current == nil, !isMediaGroup(name) else { return }
        guard open.isEmpty || (open.count == 1 && isMediaGroup(open[0])) else { return }
        // Atom 0.3's and an unqualified Atom's elements are read as Atom's.
        let key = Key(vocabulary: isAtomVocabulary(vocabulary) ? .atom : vocabulary, local: name.local)
        guard fields[key] == nil else { return }
        current = (key, attributes, open.count)
        text = ""
    }

    func endElement(_ name: XMLName) {
        guard inEntry else {
            endHeadElement()
            return
        }
        // The entry's own end tag closes it; any other pops one open element.
        guard open.popLast() != nil else {
            finishEntry()
            return
        }
        if let field = current, field.depth == open.count {
            fields[field.key] = Field(text: text, attributes: field.attributes)
            current = nil
            text = ""
        }
    }

    func characters(_ string: String) {
        if current != nil, text.utf8.count < XMLStreamReader.maxTextBytes { text += string }
        if headField != nil, headText.utf8.count < Self.maxHintBytes { headText += string }
    }

    /// RSS 0.91's DOCTYPE names the Netscape DTD over http; one naming a `file:` (or any
    /// other non-web scheme) has no use in a feed but an XXE attempt, and is refused. It would
    /// never be read either way.
    func doctype(name: String, publicID: String?, systemID: String?) {
        // A relative identifier (no scheme) would resolve against the feed's web address.
        guard let systemID, let colon = systemID.firstIndex(of: ":"), !systemID[..<colon].contains("/") else {
            return
        }
        let scheme = systemID[..<colon].lowercased()
        if scheme != "http" && scheme != "https" && refusal == nil {
            refusal = UpstreamError(
                "the feed's DOCTYPE names a non-web DTD (\(scheme):), an XXE attempt; refused")
        }
    }

    /// Keeps the entry a truncated document left open (libxml2 closes nothing at a premature end).
    func finishOpenEntry() {
        guard inEntry else { return }
        if let field = current { fields[field.key] = Field(text: text, attributes: field.attributes) }
        finishEntry()
    }

    // MARK: Structure

    private func recogniseRoot(_ name: XMLName, vocabulary: FeedVocabulary, attributes: [XMLAttribute]) {
        root = name
        switch (vocabulary, name.local) {
        case (.rss, "rss"), (.rdf, "RDF"): format = .rss
        case (.atom, "feed"), (.rss, "feed"), (.atom03, "feed"):
            format = .atom
        default: format = nil
        }
    }

    private func isMediaGroup(_ name: XMLName) -> Bool {
        name.local == "group" && FeedVocabulary(namespace: name.namespace) == .media
    }

    private func isAtomVocabulary(_ vocabulary: FeedVocabulary) -> Bool {
        format == .atom && (vocabulary == .atom || vocabulary == .atom03 || vocabulary == .rss)
    }

    private func beginEntry(_ attributes: [XMLAttribute]) {
        inEntry = true
        open = []
        fields = [:]
        entryAttributes = attributes
        atomLink = nil
        images = [:]
        enclosure = nil
        current = nil
        text = ""
    }

    private func noteImage(_ name: XMLName, vocabulary: FeedVocabulary, attributes: [XMLAttribute]) {
        let type = attributes.value(of: "type")?.lowercased() ?? ""
        if enclosure == nil {
            switch (vocabulary, name.local) {
            case (.rss, "enclosure") where format == .rss: enclosure = attributes.value(of: "url")
            case (.atom, "link"), (.atom03, "link"), (.rss, "link"):
                if format == .atom, attributes.value(of: "rel") == "enclosure" {
                    enclosure = attributes.value(of: "href")
                }
            default: break
            }
        }
        let found: (ImageSource, String?)?
        switch (vocabulary, name.local) {
        case (.media, "thumbnail"):
            found = (.mediaThumbnail, attributes.value(of: "url"))
        case (.media, "content") where attributes.value(of: "medium") == "image" || type.hasPrefix("image/"):
            found = (.mediaContent, attributes.value(of: "url"))
        case (.rss, "enclosure") where format == .rss && type.hasPrefix("image/"):
            found = (.enclosure, attributes.value(of: "url"))
        case (.atom, "link"), (.atom03, "link"), (.rss, "link"):
            let isEnclosure = format == .atom && attributes.value(of: "rel") == "enclosure"
            found = isEnclosure && type.hasPrefix("image/") ? (.enclosure, attributes.value(of: "href")) : nil
        case (.itunes, "image"):
            found = (.itunesImage, attributes.value(of: "href") ?? attributes.value(of: "url"))
        default:
            found = nil
        }
        guard let (source, address) = found, let address, images[source] == nil,
            let absolute = FeedEntries.absoluteLink(address, base: base)
        else { return }
        images[source] = absolute
    }

    // MARK: The feed's own elements

    private static let dayNames = [
        "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
    ]

    /// An element outside the entries: a hint starts when it is one of the feed's own (a child
    /// of RSS's `<channel>`, or of `<skipHours>`/`<skipDays>` there; a child of Atom's `<feed>`).
    private func startHeadElement(_ name: XMLName, vocabulary: FeedVocabulary, attributes: [XMLAttribute]) {
        defer { head.append(name) }
        guard headField == nil, let format else { return }
        let parent = head.last.map { ($0.local, FeedVocabulary(namespace: $0.namespace)) }
        switch format {
        case .rss:
            guard vocabulary == .rss else { return }
            let inChannel = head.count == 1 && parent?.0 == "channel" && parent?.1 == .rss
            let inSkips =
                head.count == 2 && head[0].local == "channel" && parent?.1 == .rss
                && (parent?.0 == "skipHours" && name.local == "hour"
                    || parent?.0 == "skipDays" && name.local == "day")
            guard inChannel && ["title", "link", "ttl"].contains(name.local) || inSkips else { return }
        case .atom:
            guard head.isEmpty, isAtomVocabulary(vocabulary) else { return }
            if name.local == "link" {
                // The feed's web site: its first `rel="alternate"` link (the default relation).
                let relation = attributes.value(of: "rel") ?? "alternate"
                if relation == "alternate", hints.siteURL == nil, let href = attributes.value(of: "href") {
                    hints.siteURL = FeedEntries.absoluteLink(href, base: base)
                }
                return
            }
            guard name.local == "title" else { return }
        }
        headField = (name.local, attributes, head.count)
        headText = ""
    }

    private func endHeadElement() {
        guard head.popLast() != nil else { return }
        guard let field = headField, field.depth == head.count else { return }
        headField = nil
        let value = PlainText.trimmed(headText)
        headText = ""
        switch field.local {
        case "title" where hints.title == nil:
            // RSS titles are escaped HTML by practice; Atom's say what they are.
            let type = field.attributes.value(of: "type")?.lowercased()
            let isHTML = format == .rss || type == "html" || type == "xhtml" || type == "text/html"
            let title =
                isHTML
                ? PlainText.read(html: value, limit: FeedEntries.maxTitle, oneLine: true).text
                : PlainText.collapse(value, limit: FeedEntries.maxTitle)
            if !title.isEmpty { hints.title = title }
        case "link" where hints.siteURL == nil:
            hints.siteURL = FeedEntries.absoluteLink(value, base: base)
        case "ttl" where hints.ttlMinutes == nil:
            if let minutes = Int(value), (1...10_080).contains(minutes) { hints.ttlMinutes = minutes }
        case "hour":
            // 0–23 GMT; some feeds write 24 for midnight.
            if let hour = Int(value), (0...24).contains(hour) { hints.skipHours.append(hour % 24) }
        case "day":
            if let day = Self.dayNames.firstIndex(of: value.lowercased()) { hints.skipDays.append(day + 1) }
        default:
            break
        }
    }

    // MARK: Entry

    private func finishEntry() {
        inEntry = false
        let entry = format == .rss ? rssEntry() : atomEntry()
        if let entry { entries.append(entry) }
    }

    private func rssEntry() -> UpstreamEntry? {
        // <link>, else a permalink <guid>: one marked isPermaLink="true" is resolved against the
        // feed's address; one without the attribute (which defaults to true) only counts when
        // it is an absolute http(s) URL, since a bare GUID is not meant as a path.
        let guidField = fields[Key(vocabulary: .rss, local: "guid")]
        let guid = guidField.map { PlainText.trimmed($0.text) }
        let permaLinkAttribute = guidField?.attributes.value(of: "isPermaLink")?.lowercased()
        let permalink: String? =
            switch permaLinkAttribute {
            case "false": nil
            case "true": guid.flatMap { FeedEntries.absoluteLink($0, base: base) }
            default: guid.flatMap { ItemLink.isSafe($0) ? $0 : nil }
            }
        let body =
            text(.content, "encoded", as: .html, limit: FeedEntries.maxBody)
            ?? text(.rss, "description", as: .html, limit: FeedEntries.maxBody)
            ?? text(.itunes, "summary", as: .plain, limit: FeedEntries.maxBody)
            ?? text(.media, "description", as: .mediaType, limit: FeedEntries.maxBody)
        // RSS practice is escaped HTML in <title>; Dublin Core and iTunes titles are text.
        let title =
            text(.rss, "title", as: .html, limit: FeedEntries.maxTitle, oneLine: true)
            ?? text(.dublinCore, "title", as: .plain, limit: FeedEntries.maxTitle, oneLine: true)
            ?? text(.media, "title", as: .mediaType, limit: FeedEntries.maxTitle, oneLine: true)
            ?? text(.itunes, "title", as: .plain, limit: FeedEntries.maxTitle, oneLine: true)
        let date = ["pubDate", "date"].lazy.compactMap { local in
            self.raw(local == "date" ? .dublinCore : .rss, local).flatMap(Self.date)
        }.first
        let id =
            text(.rss, "guid", as: .plain, limit: 10_000, oneLine: true)?.text
            ?? entryAttributes.value(of: "about", namespace: Self.rdfURI)
        return make(id: id, title: title?.text, body: body, link: raw(.rss, "link") ?? permalink, date: date)
    }

    private func atomEntry() -> UpstreamEntry? {
        let body =
            text(.atom, "content", as: .atom, limit: FeedEntries.maxBody)
            ?? text(.atom, "summary", as: .atom, limit: FeedEntries.maxBody)
        let title =
            text(.atom, "title", as: .atom, limit: FeedEntries.maxTitle, oneLine: true)
            ?? text(.dublinCore, "title", as: .plain, limit: FeedEntries.maxTitle, oneLine: true)
            ?? text(.media, "title", as: .mediaType, limit: FeedEntries.maxTitle, oneLine: true)
        // Atom 1.0: published over updated; Atom 0.3: issued, modified, created; else dc:date.
        let dates = ["published", "updated", "issued", "modified", "created"].map { raw(.atom, $0) }
        let date = (dates + [raw(.dublinCore, "date")]).lazy.compactMap { $0.flatMap(Self.date) }.first
        let id = text(.atom, "id", as: .plain, limit: 10_000, oneLine: true)?.text
        return make(id: id, title: title?.text, body: body, link: atomLink, date: date)
    }

    /// RFC 822 (RSS) or RFC 3339 (Atom, Dublin Core), whichever the text is.
    private static func date(_ text: String) -> Date? { FeedDate.rfc822(text) ?? FeedDate.rfc3339(text) }

    private func make(id: String?, title: String?, body: PlainText.Reading?, link: String?, date: Date?)
        -> UpstreamEntry?
    {
        let url = link.flatMap { FeedEntries.absoluteLink($0, base: base) }
        if images[.contentImage] == nil, let source = body?.firstImage,
            let absolute = FeedEntries.absoluteLink(source, base: base)
        {
            images[.contentImage] = absolute
        }
        let enclosureURL = enclosure.flatMap { FeedEntries.absoluteLink($0, base: base) }
        guard
            var entry = FeedEntries.make(
                id: id, title: title, body: body?.text ?? "", url: url, date: date, enclosure: enclosureURL)
        else { return nil }
        entry.image = images.min { $0.key < $1.key }?.value
        return entry
    }

    // MARK: Field text

    private static let rdfURI = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// How a field's text is to be read.
    private enum Markup {
        /// Plain text by definition (Dublin Core, iTunes, ids).
        case plain
        /// Escaped HTML (RSS `title`, `description`, `content:encoded`).
        case html
        /// Media RSS: `type="html"` is HTML, anything else plain.
        case mediaType
        /// An Atom text construct. 1.0: `type` is `text` (default), `html` or `xhtml` (whose
        /// child elements' text was gathered). 0.3: `type` is a media type (default
        /// `text/plain`) and `mode` is `xml` (default), `escaped` or `base64`.
        case atom
    }

    private func raw(_ vocabulary: FeedVocabulary, _ local: String) -> String? {
        fields[Key(vocabulary: vocabulary, local: local)]?.text
    }

    /// The field's text read as `markup`, nil when absent or empty.
    private func text(
        _ vocabulary: FeedVocabulary, _ local: String, as markup: Markup, limit: Int, oneLine: Bool = false
    ) -> PlainText.Reading? {
        guard let field = fields[Key(vocabulary: vocabulary, local: local)] else { return nil }
        var text = field.text
        let type = field.attributes.value(of: "type")?.lowercased()
        let isHTML: Bool
        switch markup {
        case .plain: isHTML = false
        case .html: isHTML = true
        case .mediaType: isHTML = type == "html"
        case .atom:
            // Out-of-line content (`src=`) is not fetched.
            if field.attributes.value(of: "src") != nil, text.isEmpty { return nil }
            // `mode` is Atom 0.3's, but Atom 1.0 documents that kept it are decoded too.
            if field.attributes.value(of: "mode")?.lowercased() == "base64" {
                guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                    return nil
                }
                text = String(decoding: decoded, as: UTF8.self)
            }
            isHTML = type == "html" || type == "text/html"
        }
        let reading =
            isHTML
            ? PlainText.read(html: text, limit: limit, oneLine: oneLine)
            : PlainText.Reading(
                text: oneLine ? PlainText.collapse(text, limit: limit) : PlainText.lines(text, limit: limit))
        return reading.text.isEmpty ? nil : reading
    }
}
