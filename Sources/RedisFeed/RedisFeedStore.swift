public import Feed
public import Foundation
public import Logging
public import RedisClient
import Synchronization

/// The shared feed: one version sequence for every instance on one Redis, one reload at a time
/// cluster-wide.
///
/// - Reads never touch Redis: ``current`` is this instance's copy, kept up to date by the
///   subscriber (and re-read after every reconnect, since pub/sub drops messages).
/// - A reload takes a lease (`SET prefix:lease token NX PX lease`). Holders fetch and commit
///   with one fenced script (token and base version checked, version incremented, snapshot
///   stored at `prefix:snap:<v>`, published, lease released); everyone else waits for the
///   published result with a deadline of the lease's remaining time, then tries again.
/// - Redis restarted empty: the first instance to reconnect seeds it with its newest snapshot
///   in a new epoch (``FeedSnapshot/epoch``, part of every `ETag` and event id), so a version
///   number names one snapshot within an epoch; instances from the old epoch adopt the new one.
/// - Redis unreachable: GETs keep serving the last snapshot; reloads fail at once (at most a
///   connect plus a command timeout) with ``FeedError/retryAfter`` set (`503`).
public actor RedisFeedStore: FeedBackend {
    private let configuration: RedisConfiguration
    private let client: RedisClient
    private let board: SnapshotBoard
    private let subscriberBox = Mutex<RedisSubscriber?>(nil)
    private let source: any FeedSource
    private let delay: Duration
    private let maxItems: Int
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let token: String
    private var inFlight = SingleFlight()
    private var rejoining = false
    private let closed = Atomic<Bool>(false)

    private var versionKey: String { configuration.prefix + "version" }
    private var leaseKey: String { configuration.prefix + "lease" }
    private var channel: String { configuration.prefix + "versions" }
    private var snapshotPrefix: String { configuration.prefix + "snap:" }
    private var epochKey: String { configuration.prefix + "epoch" }

    /// How long a replaced snapshot stays readable for instances that are catching up.
    private static let keepPrevious = "600000"
    /// No lease is granted this long after a re-join found Redis empty (every live instance
    /// reconnects within its 2 s backoff cap and re-seeds).
    private static let settleMilliseconds = "3000"

    /// Connects, joins the cluster (seeding Redis with `initial` as version 1 if it holds no
    /// feed yet, else adopting the stored newest snapshot) and starts the subscriber. Throws if
    /// Redis cannot be reached or holds something that is not a feed snapshot.
    public static func connect(
        _ configuration: RedisConfiguration, initial: [FeedItem], source: any FeedSource, delay: Duration,
        maxItems: Int, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws(RedisError) -> RedisFeedStore {
        let client = RedisClient(configuration: configuration)
        let trimmed = Array(initial.sorted(by: FeedItem.newestFirst).prefix(max(1, maxItems)))
        let seed = FeedSnapshot(
            version: 1, updatedAt: now(), entries: trimmed.map { FeedSnapshot.Entry(item: $0, addedIn: 1) })
        let joined: FeedSnapshot
        do {
            joined = try await join(client: client, configuration: configuration, local: seed, rejoin: false)
        } catch {
            client.close()
            throw error
        }
        let store = RedisFeedStore(
            configuration: configuration, client: client, snapshot: joined, source: source, delay: delay,
            maxItems: maxItems, now: now, logger: logger)
        store.startSubscriber()
        // Serve only once versions can arrive: the subscription is live (its first re-join then
        // re-reads the version, covering commits made between the join above and now).
        let deadline = ContinuousClock.now + configuration.connectTimeout + configuration.commandTimeout
        while !store.isSubscribed {
            guard ContinuousClock.now < deadline else {
                store.close()
                throw .unreachable("\(configuration.url): the subscription did not start in time")
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return store
    }

    private nonisolated var isSubscribed: Bool { subscriberBox.withLock { $0?.isSubscribed } ?? false }

    private init(
        configuration: RedisConfiguration, client: RedisClient, snapshot: FeedSnapshot,
        source: any FeedSource, delay: Duration, maxItems: Int, now: @escaping @Sendable () -> Date,
        logger: Logger
    ) {
        self.configuration = configuration
        self.client = client
        self.board = SnapshotBoard(snapshot)
        self.source = source
        self.delay = delay
        self.maxItems = max(1, maxItems)
        self.now = now
        self.logger = logger
        self.token = "\(ProcessInfo.processInfo.processIdentifier)-\(UInt64.random(in: .min ... .max))"
    }

    deinit {
        close()
    }

    /// The current snapshot's epoch as a tag: the cluster's epoch (`prefix:epoch`), the same on
    /// every instance, so ETags match wherever a client lands; new when Redis lost the feed.
    public nonisolated var cacheTag: String { board.current.position.tag }

    /// This instance's count of snapshots made current (see ``FeedSnapshot/revision``).
    public nonisolated var currentRevision: Int { board.currentRevision }

    /// The newest snapshot this instance knows; never waits.
    public nonisolated var current: FeedSnapshot { board.current }

    /// Its version; never waits.
    public nonisolated var currentVersion: Int { board.currentVersion }

    /// Every version this instance learns from now on: its own reloads' and, through the
    /// subscription (or a catch-up after a reconnect), every other instance's.
    public nonisolated func publications() -> AsyncStream<FeedSnapshot> {
        board.broadcaster.subscribe()
    }

    /// How many of this instance's reloads are waiting for another instance's (at most one:
    /// local callers share one reload).
    nonisolated var waitingForCluster: Int { board.waiting }

    /// `degraded` with `"redis": "unreachable"` while the subscription or the command
    /// connection is down.
    public nonisolated var health: FeedHealth {
        let up = client.isReachable && isSubscribed
        return FeedHealth(degraded: !up, details: [.init("redis", up ? "connected" : "unreachable")])
    }

    /// Stops the subscriber and the command thread.
    public nonisolated func close() {
        closed.store(true, ordering: .relaxed)
        subscriberBox.withLock { $0?.close() }
        client.close()
    }

    private nonisolated func startSubscriber() {
        let subscriber = RedisSubscriber(
            configuration: configuration, channel: configuration.prefix + "versions",
            onMessage: { [weak self] payload in self?.received(payload) },
            onConnected: { [weak self] in
                guard let self else { return }
                Task { await self.rejoin() }
            },
            onDisconnected: { [logger] error in logger.warning("redis subscriber: \(error)") })
        subscriberBox.withLock { $0 = subscriber }
    }

    // MARK: Learning versions

    /// A channel message, on the subscriber's thread: decoding happens here, off the pool.
    private nonisolated func received(_ payload: [UInt8]) {
        switch ChannelMessage(payload) {
        case .committed(let reload, let epoch, let bytes):
            do {
                board.publish(try SnapshotCodec.decode(bytes, epoch: epoch), reload: reload)
            } catch {
                logger.error("redis: ignored a published snapshot: \(error)")
            }
        case .unchanged(let reload, let version):
            board.unchanged(version: version, reload: reload)
        case .failed(_, let base, let message):
            board.failed(base: base, message: message)
        case nil:
            logger.error("redis: ignored an unknown message on \(configuration.prefix)versions")
        }
    }

    /// After every (re)subscribe and after any failed command: re-read the version (messages
    /// may have been lost) and re-seed Redis if it came back with less than we hold. Retried
    /// every 200 ms until it succeeds (one loop at a time), which is also what brings `health`
    /// back once Redis answers again.
    private func rejoin() async {
        guard !rejoining else { return }
        rejoining = true
        defer { rejoining = false }
        var failures = 0
        while !closed.load(ordering: .relaxed) {
            do {
                try await adoptCluster()
                if failures > 0 { logger.warning("redis: re-joined after \(failures) failed attempts") }
                return
            } catch {
                if failures == 0 { logger.warning("redis: re-join failed, retrying: \(error)") }
                failures += 1
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// Re-joins and makes what Redis answers current (a new epoch's snapshot included).
    private func adoptCluster() async throws(RedisError) {
        let joined = try await Self.join(
            client: client, configuration: configuration, local: board.current, rejoin: true)
        board.publish(joined, reload: 0, adopting: true)
    }

    /// Runs the join script (see ``FeedScripts/join``) with `local` and answers the snapshot
    /// Redis holds afterwards, with its epoch.
    private static func join(
        client: RedisClient, configuration: RedisConfiguration, local: FeedSnapshot, rejoin: Bool
    ) async throws(RedisError) -> FeedSnapshot {
        let prefix = configuration.prefix
        // A new epoch, should this join begin one: later than the one we hold, by our clock.
        let newEpoch = max(FeedStore.epochNow(), local.epoch + 1)
        let reply = try await FeedScripts.join.run(
            on: client, keys: [prefix + "version", prefix + "epoch", prefix + "settle"],
            arguments: [
                Array((prefix + "snap:").utf8), Array(String(local.version).utf8),
                SnapshotCodec.encode(local),
                Array(String(local.epoch).utf8), Array((rejoin ? "1" : "0").utf8),
                Array(settleMilliseconds.utf8),
                Array((prefix + "versions").utf8), Array(String(newEpoch).utf8),
            ])
        guard case .array(let parts) = reply, parts.count == 4, let version = parts[0].integerValue,
            let epochText = parts[1].text, let epoch = Int(epochText)
        else { throw .unexpectedReply("join answered \(reply)") }
        guard case .string(let bytes) = parts[2] else {
            throw .unexpectedReply("version \(version) has no stored snapshot at \(prefix)snap:\(version)")
        }
        let snapshot = try SnapshotCodec.decode(bytes, epoch: epoch)
        guard snapshot.version == version else {
            throw .unexpectedReply("\(prefix)snap:\(version) holds version \(snapshot.version)")
        }
        return snapshot
    }

    /// The stored snapshot of `version` in the cluster's epoch, made current here (catching up on
    /// a lost message); read with the epoch in one command.
    private func catchUp(to version: Int) async throws(RedisError) {
        guard version > board.currentVersion else { return }
        let reply = try await client.send(["MGET", epochKey, snapshotPrefix + String(version)])
        guard case .array(let parts) = reply, parts.count == 2, let epochText = parts[0].text,
            let epoch = Int(epochText), case .string(let bytes) = parts[1]
        else {
            throw .unexpectedReply("\(snapshotPrefix)\(version) or \(epochKey) is missing")
        }
        board.publish(try SnapshotCodec.decode(bytes, epoch: epoch), reload: 0)
    }

    // MARK: Reloading

    /// Joins this instance's reload in flight, or takes part in the cluster's: either runs the
    /// reload under the lease or waits for the holder's result.
    public func reload() async throws(FeedError) -> ReloadOutcome {
        let task = inFlight.join { Task { await self.performReload() } }
        return try await task.value.get()
    }

    private func performReload() async -> Result<ReloadOutcome, FeedError> {
        defer { inFlight.finish() }
        let deadline =
            ContinuousClock.now + configuration.lease * 2 + delay + configuration.commandTimeout * 2
        do {
            // The epoch this reload began in: a wait woken by the adoption of a new one (Redis
            // lost the feed and was seeded again) is no reload's result, so the loop goes on and
            // this caller takes part in a reload within the new epoch.
            let startEpoch = board.current.epoch
            while true {
                let base = board.currentVersion
                let reply = try await FeedScripts.acquire.run(
                    on: client,
                    keys: [
                        leaseKey, versionKey, configuration.prefix + "reloads",
                        configuration.prefix + "settle", epochKey,
                    ],
                    arguments: [
                        Array(token.utf8), Array(String(Self.milliseconds(configuration.lease)).utf8),
                    ])
                guard case .array(let parts) = reply, parts.count == 4, let flag = parts[0].integerValue,
                    let number = parts[1].integerValue, let stored = parts[2].integerValue,
                    let clusterEpoch = parts[3].text
                else { throw RedisError.unexpectedReply("acquire answered \(reply)") }
                if stored > 0, clusterEpoch != String(board.current.epoch) {
                    // The cluster moved to another epoch (Redis lost the feed and was seeded
                    // again): adopt its snapshot before anything else; never commit ours in it.
                    if flag == 1 {
                        _ = try? await release(ChannelMessage.unchanged(reload: number, version: stored))
                    }
                    try await adoptCluster()
                    continue
                }
                if flag == 1 {
                    return try await runReload(number: number, stored: stored)
                }
                // Not ours: `number` is how long (ms) the lease or the settle window still runs.
                if stored == 0 {
                    // Redis holds no feed (restarted empty): re-seed before anyone reloads.
                    Task { await self.rejoin() }
                } else if stored > base {
                    try await catchUp(to: stored)
                }
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else {
                    return .failure(
                        FeedError("the reload on another instance did not finish in time", retryAfter: 1))
                }
                // The holder's own deadline is its lease; wait that long (plus a little jitter so
                // waiters do not all retry at once), then try for the lease again.
                // Waiting above what we knew before asking means a commit that arrived meanwhile
                // answers at once instead of being missed.
                let wait = min(.milliseconds(max(number, 0) + Int.random(in: 20...80)), remaining)
                switch await board.wait(above: max(base, stored), timeout: wait) {
                case .published(let snapshot, _) where snapshot.epoch != startEpoch:
                    continue
                case .published(let snapshot, let reload):
                    return .success(ReloadOutcome(snapshot: snapshot, reloadNumber: reload))
                case .failed(let message):
                    return .failure(FeedError(message))
                case .timedOut:
                    continue
                }
            }
        } catch {
            logger.warning("redis: reload failed: \(error)")
            Task { await self.rejoin() }
            return .failure(FeedError("the shared feed store (Redis) is \(error)", retryAfter: 2))
        }
    }

    /// Under the lease: fetch, merge, commit (fenced), or release with the outcome.
    private func runReload(number: Int, stored: Int) async throws(RedisError) -> Result<
        ReloadOutcome, FeedError
    > {
        if stored > board.currentVersion {
            try await catchUp(to: stored)
        } else if stored < board.currentVersion {
            // Redis lost data and our re-seed has not run yet: run it now, then commit on top.
            try await adoptCluster()
        }
        let before = board.current
        do {
            try await Task.sleep(for: delay)
        } catch {
            return .failure(FeedError("reload was cancelled"))
        }
        let items: [FeedItem]
        do {
            items = try await source.fetch(current: before.items)
        } catch {
            let failure = (error as? FeedError) ?? FeedError("upstream failed: \(error)")
            // If Redis is gone too, the lease simply expires; the upstream error is the answer.
            _ = try? await release(
                ChannelMessage.failed(reload: number, base: before.version, message: failure.message))
            return .failure(failure)
        }
        let merged = FeedStore.merge(before, with: items, maxItems: maxItems, at: now())
        guard merged.version != before.version else {
            _ = try? await release(ChannelMessage.unchanged(reload: number, version: before.version))
            return .success(ReloadOutcome(snapshot: before, reloadNumber: number))
        }
        let bytes = SnapshotCodec.encode(merged)
        let reply = try await FeedScripts.commit.run(
            on: client,
            keys: [
                leaseKey, versionKey, snapshotPrefix + String(merged.version),
                snapshotPrefix + String(before.version), epochKey,
            ],
            arguments: [
                Array(token.utf8), Array(String(before.version).utf8), bytes, Array(channel.utf8),
                Array(String(number).utf8), Array(Self.keepPrevious.utf8), Array(String(before.epoch).utf8),
            ])
        guard case .array(let parts) = reply, parts.count == 2, let committed = parts[0].integerValue,
            let version = parts[1].integerValue
        else { throw .unexpectedReply("commit answered \(reply)") }
        guard committed == 1 else {
            logger.warning(
                "redis: commit of version \(merged.version) refused (lease lost, version or epoch moved; Redis has \(version))"
            )
            try await adoptCluster()
            return .success(ReloadOutcome(snapshot: board.current, reloadNumber: number))
        }
        // Everyone renders what Redis holds: the decoded bytes, not our in-memory copy.
        let snapshot = try SnapshotCodec.decode(bytes, epoch: before.epoch)
        board.publish(snapshot, reload: number)
        return .success(ReloadOutcome(snapshot: board.current, reloadNumber: number))
    }

    private func release(_ message: [UInt8]) async throws(RedisError) -> Bool {
        let reply = try await FeedScripts.release.run(
            on: client, keys: [leaseKey], arguments: [Array(token.utf8), Array(channel.utf8), message])
        return reply.integerValue == 1
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
