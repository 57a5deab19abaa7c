/// What ``FeedDocument/read(_:contentType:base:)`` found: the entries, what the feed says about
/// itself, and what was recovered from on the way.
public struct FeedReading: Sendable, Equatable {
    /// The entries, in feed order (never empty).
    public var entries: [UpstreamEntry]
    /// Nil for a well-formed document; otherwise one line naming what libxml2 recovered from,
    /// e.g. `recovered from 2 XML errors (first: line 3: xmlParseEntityRef: no name)`.
    public var recovered: String?
    /// The feed's title, site and scheduling hints, from its own elements.
    public var hints: FeedHints

    /// Creates a reading.
    public init(entries: [UpstreamEntry], recovered: String? = nil, hints: FeedHints = FeedHints()) {
        self.entries = entries
        self.recovered = recovered
        self.hints = hints
    }
}
