public import Foundation
import Synchronization

/// The feed's data: an actor that reloads from a ``FeedSource`` after an (async) delay, with
/// every concurrent caller sharing the one reload in flight.
///
/// Reads never wait: the latest snapshot is published behind a short lock that
/// ``current`` takes without touching the actor, so page and API GETs stay on the fast path
/// even while a slow reload is pending.
///
/// With a ``FeedRecord`` (a database) memory is the read model: each reload's snapshot is
/// written there first, and published only once written; a failed write fails the reload.
public actor FeedStore: FeedBackend {
    /// What a reload produced (kept here for existing callers).
    public typealias ReloadOutcome = Feed.ReloadOutcome

    private let source: any FeedSource
    private let clock: any Clock<Duration>
    private let delay: Duration
    private let maxItems: Int
    private let now: @Sendable () -> Date
    private let published: Mutex<FeedSnapshot>
    private let reloadCounter = Atomic<Int>(0)
    private let publishedVersion = Atomic<Int>(1)
    private var inFlight = SingleFlight()
    private var lastError: FeedError?
    private let broadcaster = SnapshotBroadcaster()
    private let record: (any FeedRecord)?

    /// Creates a store with `initial` items as version 1 of a new epoch.
    public init(
        initial: [FeedItem], source: any FeedSource, delay: Duration, maxItems: Int,
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            restoring: Self.firstSnapshot(of: initial, maxItems: maxItems, at: now()), record: nil,
            source: source, delay: delay, maxItems: maxItems, clock: clock, now: now)
    }

    /// Version 1 of a new epoch holding `items` (the `maxItems` newest): where a store without
    /// a past begins.
    public static func firstSnapshot(of items: [FeedItem], maxItems: Int, at date: Date) -> FeedSnapshot {
        let trimmed = Array(items.sorted(by: FeedItem.newestFirst).prefix(max(1, maxItems)))
        return FeedSnapshot(
            version: 1, updatedAt: date, entries: trimmed.map { FeedSnapshot.Entry(item: $0, addedIn: 1) },
            epoch: epochNow())
    }

    /// Creates a store that carries on from `snapshot` (its epoch, version and items, as a
    /// database kept them), writing every new snapshot to `record` before publishing it.
    public init(
        restoring snapshot: FeedSnapshot, record: (any FeedRecord)?, source: any FeedSource, delay: Duration,
        maxItems: Int, clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.clock = clock
        self.delay = delay
        self.maxItems = max(1, maxItems)
        self.now = now
        self.record = record
        cacheTag = FeedPosition.tag(snapshot.epoch)
        var restored = snapshot
        restored.entries = Array(snapshot.entries.prefix(max(1, maxItems)))
        published = Mutex(restored)
        publishedVersion.store(restored.version, ordering: .relaxed)
    }

    /// Microseconds since 1970 by the system clock: a new version sequence's epoch.
    public static func epochNow() -> Int {
        Int((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The latest snapshot; cheap, never waits for a reload.
    public nonisolated var current: FeedSnapshot {
        published.withLock { $0 }
    }

    /// The latest snapshot's version, read without a lock: enough to find cached responses.
    public nonisolated var currentVersion: Int {
        publishedVersion.load(ordering: .acquiring)
    }

    /// This process's epoch as a tag: distinguishes its ETags and event ids from an earlier
    /// run's, whose versions restarted at 1.
    public nonisolated let cacheTag: String

    /// Always healthy: there is nothing remote to lose.
    public nonisolated var health: FeedHealth { .ok }

    /// Every new version this store publishes from now on.
    public nonisolated func publications() -> AsyncStream<FeedSnapshot> {
        broadcaster.subscribe()
    }

    /// How many reloads have started since the store was created.
    public nonisolated var reloadsStarted: Int {
        reloadCounter.load(ordering: .relaxed)
    }

    /// Whether a reload is running now.
    public var isReloading: Bool { inFlight.isRunning }

    /// The most recent reload failure, cleared by the next success.
    public var lastFailure: FeedError? { lastError }

    /// Waits for the delay, fetches from the source, and publishes the result. Callers that
    /// arrive while a reload is in flight join it instead of starting another.
    public func reload() async throws(FeedError) -> ReloadOutcome {
        let task = inFlight.join { Task { await self.performReload() } }
        return try await task.value.get()
    }

    private func performReload() async -> Result<ReloadOutcome, FeedError> {
        let number = reloadCounter.add(1, ordering: .relaxed).newValue
        defer { inFlight.finish() }
        do {
            try await clock.sleep(for: delay)
        } catch {
            return .failure(FeedError("reload was cancelled"))
        }
        let before = current
        let items: [FeedItem]
        do {
            items = try await source.fetch(current: before.items)
        } catch let error as FeedError {
            lastError = error
            return .failure(error)
        } catch {
            let wrapped = FeedError("upstream failed: \(error)")
            lastError = wrapped
            return .failure(wrapped)
        }
        let next = Self.merge(before, with: items, maxItems: maxItems, at: now())
        if let record {
            do {
                try record.write(next, replacing: before)
            } catch {
                lastError = error
                return .failure(error)
            }
        }
        lastError = nil
        published.withLock { $0 = next }
        publishedVersion.store(next.version, ordering: .releasing)
        if next.version != before.version { broadcaster.publish(next) }
        return .success(ReloadOutcome(snapshot: next, reloadNumber: number))
    }

    /// The snapshot after a successful fetch: a new version only if the items changed, each
    /// item keeping the version it first appeared in, trimmed to `maxItems` newest; in the same
    /// epoch as `before`.
    public static func merge(_ before: FeedSnapshot, with fetched: [FeedItem], maxItems: Int, at date: Date)
        -> FeedSnapshot
    {
        // The items of `before` exactly (a river whose sources all answered `304` hands back
        // the store's own): they are sorted and trimmed already, so only the time moves.
        if fetched.count == before.entries.count,
            zip(fetched, before.entries).allSatisfy({ $0 == $1.item })
        {
            return FeedSnapshot(
                version: before.version, updatedAt: date, entries: before.entries, epoch: before.epoch,
                revision: before.revision)
        }
        let sorted = Array(fetched.sorted(by: FeedItem.newestFirst).prefix(maxItems))
        let changed = sorted != before.items
        let version = changed ? before.version + 1 : before.version
        var knownVersions: [String: Int] = [:]
        knownVersions.reserveCapacity(before.entries.count)
        for entry in before.entries {
            knownVersions[entry.item.id] = entry.addedIn
        }
        let entries = sorted.map { FeedSnapshot.Entry(item: $0, addedIn: knownVersions[$0.id] ?? version) }
        return FeedSnapshot(
            version: version, updatedAt: date, entries: entries, epoch: before.epoch,
            revision: before.revision + (changed ? 1 : 0))
    }
}
