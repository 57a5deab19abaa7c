/// What an OPML import did.
public struct OPMLImport: Sendable, Equatable {
    /// Feeds subscribed.
    public var added: Int
    /// Feeds already subscribed (or refused, see ``problems``), left as they were.
    public var skipped: Int
    /// Why outlines were refused, one line each (at most a handful), for the person.
    public var problems: [String]

    /// Creates a report.
    public init(added: Int, skipped: Int, problems: [String] = []) {
        self.added = added
        self.skipped = skipped
        self.problems = problems
    }
}
