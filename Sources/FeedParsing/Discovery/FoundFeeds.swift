public import Feed
public import Foundation

/// What an address led to (``FeedFinder/find(_:)``).
public enum FoundFeeds: Sendable, Equatable {
    /// The address is a feed, or the one feed its page names or its origin answers at a usual
    /// path: its URL and its title (the feed's own, else the page's name for it).
    case feed(URL, title: String?)
    /// Two or more feeds the page names: the person chooses (not fetched yet).
    case candidates([FeedCandidate])
}
