/// Where a ``FeedStore`` makes each new snapshot durable before publishing it: the system of
/// record (a database file). Without one the store lives in memory only.
///
/// One writer: the store calls it from its own reload, one at a time. Reads never reach it.
public protocol FeedRecord: Sendable {
    /// Writes `next`, which follows `before` (the snapshot written last), in one transaction.
    /// Throws to fail the reload: the store then publishes nothing and keeps `before`; an error
    /// with ``FeedError/retryAfter`` is answered `503` (the store of record is unavailable).
    func write(_ next: FeedSnapshot, replacing before: FeedSnapshot) throws(FeedError)
}
