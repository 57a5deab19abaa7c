/// Where a reload gets its items from.
public protocol FeedSource: Sendable {
    /// Produces the full new list, given the current one (a generator adds to it; a file
    /// ignores it). Throws ``FeedError`` with a clear message on bad data.
    func fetch(current: [FeedItem]) async throws -> [FeedItem]
}
