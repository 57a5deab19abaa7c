/// The XML vocabularies a feed's elements come from, recognised by namespace URI (any prefix
/// works) or, for an undeclared prefix, by the customary prefix itself (`itunes:`, `media:`…),
/// as the reference readers do.
enum FeedVocabulary: Sendable {
    /// RSS 0.9x/2.0 (no namespace, or Userland's), RSS 1.0 and Netscape's RSS 0.90.
    case rss
    /// RDF, the root of RSS 1.0 and 0.90 (`rdf:RDF`, `rdf:about`).
    case rdf
    /// Atom 1.0.
    case atom
    /// Atom 0.3, which differs in dates and `mode` (escaped, base64).
    case atom03
    /// Dublin Core elements and terms (`dc:title`, `dc:date`).
    case dublinCore
    /// `content:encoded`.
    case content
    /// Media RSS (`media:thumbnail`, `media:content`, `media:title`).
    case media
    /// Apple's podcast tags (`itunes:image`, `itunes:summary`).
    case itunes
    /// Anything else: ignored.
    case other

    /// The vocabulary of a namespace URI (or bare undeclared prefix).
    init(namespace: String) {
        self = Self.known[namespace] ?? Self.known[namespace.lowercased()] ?? .other
    }

    private static let known: [String: FeedVocabulary] = [
        "": .rss,
        "rss": .rss,
        "http://backend.userland.com/rss2": .rss,
        "http://backend.userland.com/rss": .rss,
        "http://purl.org/rss/1.0/": .rss,
        "http://my.netscape.com/rdf/simple/0.9/": .rss,
        "http://channel.netscape.com/rdf/simple/0.9/": .rss,
        "rdf": .rdf,
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#": .rdf,
        "atom": .atom,
        "http://www.w3.org/2005/atom": .atom,
        "http://purl.org/atom/ns#": .atom03,
        "dc": .dublinCore,
        "dcterms": .dublinCore,
        "http://purl.org/dc/elements/1.1/": .dublinCore,
        "http://purl.org/dc/terms/": .dublinCore,
        "content": .content,
        "http://purl.org/rss/1.0/modules/content/": .content,
        "media": .media,
        "http://search.yahoo.com/mrss/": .media,
        "http://search.yahoo.com/mrss": .media,
        "itunes": .itunes,
        "http://www.itunes.com/dtds/podcast-1.0.dtd": .itunes,
    ]
}
