/// What the routes need from the feed's storage: the in-memory ``FeedStore`` (one process, the
/// default) and the Redis-backed store (several instances sharing one feed) both provide it.
///
/// Reads (``current``, ``currentVersion``, ``health``) never wait: not for a reload, not for
/// the network. ``reload()`` is shared: concurrent callers join the reload in flight.
public protocol FeedBackend: Sendable {
    /// The latest snapshot; cheap, never waits.
    var current: FeedSnapshot { get }
    /// The latest snapshot's version, enough to find cached responses; cheap (an atomic load),
    /// never waits.
    var currentVersion: Int { get }
    /// The current snapshot's epoch as a tag (``FeedPosition/tag``), which together with a
    /// version names one snapshot's content: part of every page and API `ETag`. Per process in
    /// memory; shared by all instances of a cluster, and new whenever Redis lost the feed.
    var cacheTag: String { get }
    /// The current snapshot's ``FeedSnapshot/revision``, read without waiting: what the byte
    /// caches and stored responses key on (a version number alone may repeat across epochs).
    var currentRevision: Int { get }
    /// What `/healthz` reports besides the version.
    var health: FeedHealth { get }
    /// Joins or starts a reload and returns its result. A ``FeedError`` with
    /// ``FeedError/retryAfter`` set means the backend itself is unavailable (answered `503`).
    func reload() async throws(FeedError) -> ReloadOutcome
    /// Every snapshot published from now on with a new version, however it arrived (this
    /// process's reload, or another instance's through Redis): what the event stream fans out.
    func publications() -> AsyncStream<FeedSnapshot>
}

extension FeedBackend {
    /// A single version sequence: the revision is the version.
    public var currentRevision: Int { currentVersion }
}
