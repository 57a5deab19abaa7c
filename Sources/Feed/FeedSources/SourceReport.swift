public import Foundation

/// One source of a river and how its fetches go: what `GET /api/sources`, `/healthz`, the
/// metrics and the page's status line report.
public struct SourceReport: Sendable, Equatable {
    /// Key, title and site.
    public var label: SourceLabel
    /// The feed's URL without user or password (exported as the OPML `xmlUrl`).
    public var feedURL: String
    /// The URL as messages show it: also without its query, which may hold credentials.
    public var displayURL: String
    /// When a fetch last succeeded (a `200` with items, or a `304`).
    public var lastSuccess: Date?
    /// Why the last fetch failed, while it is failing.
    public var lastError: String?
    /// What the last parse recovered from in an ill-formed feed, nil when it was well-formed.
    public var recovered: String?
    /// When the current run of failures began.
    public var failingSince: Date?
    /// Failed fetches in a row (0 while it works): what its back-off grows with.
    public var consecutiveFailures: Int
    /// When the schedule fetches it next (nil without a scheduled refresh).
    public var nextFetch: Date?
    /// How many items of it the river holds.
    public var items: Int
    /// Who put it in the river: the operator's command line (`--source`, `--sources`, and every
    /// source of a river without a database), or the owner. Only the owner's can be removed.
    public var origin: SubscriptionOrigin

    /// Creates a report.
    public init(
        label: SourceLabel, feedURL: String, displayURL: String, lastSuccess: Date? = nil,
        lastError: String? = nil, recovered: String? = nil, failingSince: Date? = nil,
        consecutiveFailures: Int = 0,
        nextFetch: Date? = nil, items: Int = 0, origin: SubscriptionOrigin = .commandLine
    ) {
        self.label = label
        self.feedURL = feedURL
        self.displayURL = displayURL
        self.lastSuccess = lastSuccess
        self.lastError = lastError
        self.recovered = recovered
        self.failingSince = failingSince
        self.consecutiveFailures = consecutiveFailures
        self.nextFetch = nextFetch
        self.items = items
        self.origin = origin
    }

    /// Whether its last fetch failed.
    public var isFailing: Bool { lastError != nil }

    /// Whether the operator set it (removed only from the command line).
    public var isOperator: Bool { origin == .commandLine }
}
