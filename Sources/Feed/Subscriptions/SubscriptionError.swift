/// Why a change to the subscriptions was refused: a code that programs branch on (the API's
/// `"code"`), a message for the person, and what the surfaces need to offer a way on.
public struct SubscriptionError: Error, Sendable, Equatable {
    /// What went wrong; the surfaces map each to a status.
    public enum Code: String, Sendable {
        /// Not an http(s) address, or longer than 2,048 bytes, or a title or folder too long (422).
        case badAddress = "bad_address"
        /// The address resolves inside the network and private feeds are not allowed (422).
        case refusedAddress = "refused_address"
        /// The page names several feeds: ``SubscriptionError/candidates`` lists them (409).
        case severalFeeds = "several_feeds"
        /// Neither the address, its page's links nor the usual paths gave a feed (422).
        case noFeed = "no_feed"
        /// Already subscribed: ``SubscriptionError/existingKey`` names the source (409).
        case alreadySubscribed = "already_subscribed"
        /// The address could not be fetched (422: the person's input led there).
        case unreachable = "unreachable"
        /// 500 sources already (422).
        case tooMany = "too_many_sources"
        /// No source has this key (404).
        case notFound = "not_found"
        /// The operator's `--source`/`--sources`: renamed and moved from the phone, removed only
        /// from the command line (409).
        case operatorSource = "operator_source"
        /// The OPML document is not one, or too large (400 / 413 by the surface).
        case badOPML = "bad_opml"
        /// Subscriptions cannot change here (no database: the list is the command line's) (409).
        case readOnly = "read_only"
        /// The database refused the change (503, retry).
        case storage = "storage"
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for the person.
    public var message: String
    /// With ``Code/severalFeeds``: the feeds to choose from.
    public var candidates: [FeedCandidate]
    /// With ``Code/alreadySubscribed``: the source's key.
    public var existingKey: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, candidates: [FeedCandidate] = [], existingKey: String? = nil)
    {
        self.code = code
        self.message = message
        self.candidates = candidates
        self.existingKey = existingKey
    }
}
