package import Feed
import Foundation

/// What a feed says about itself besides its items: its title and site (the river's labels),
/// and RSS's scheduling hints (`<ttl>`, `<skipHours>`, `<skipDays>`).
///
/// Read by the parser that reads the items (``FeedEntryCollector`` for RSS and Atom, with their
/// namespaces, charset and recovery; ``JSONFeedParser`` for JSON Feed), from the feed's own
/// elements outside its items. Values are plain text; anything odd is ignored (hints are
/// optional by nature).
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
    package func write(into writer: inout JSONWriter) {
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

    /// These hints as the schedule uses them: skips sorted and without repeats, and a feed that
    /// would skip every hour (or every day) — never to be fetched — has that wish ignored.
    func normalized() -> FeedHints {
        var hints = self
        hints.skipHours = Array(Set(skipHours)).sorted()
        hints.skipDays = Array(Set(skipDays)).sorted()
        if hints.skipHours.count == 24 { hints.skipHours = [] }
        if hints.skipDays.count == 7 { hints.skipDays = [] }
        return hints
    }
}
