/// What ``FeedDocument/read(_:contentType:base:)`` found: the entries, and what was recovered
/// from on the way.
public struct FeedReading: Sendable, Equatable {
    /// The entries, in feed order (never empty).
    public var entries: [UpstreamEntry]
    /// Nil for a well-formed document; otherwise one line naming what libxml2 recovered from,
    /// e.g. `recovered from 2 XML errors (first: line 3: xmlParseEntityRef: no name)`.
    public var recovered: String?

    /// Creates a reading.
    public init(entries: [UpstreamEntry], recovered: String? = nil) {
        self.entries = entries
        self.recovered = recovered
    }
}
