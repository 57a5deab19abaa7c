public import Feed
public import FeedParsing
public import Foundation
public import HTTPClient
public import Metrics
import Synchronization

/// Many feeds as one: a ``FeedSource`` whose reload fans out to every source (a pull) or to the
/// sources that are due (the schedule, ``ReloadTrigger``), at most `concurrency` at once, each
/// with its own conditional GET and the per-fetch limits, and merges what they hold into one
/// list (the store sorts it newest first).
///
/// - **Item ids** are `<source key>:<the feed's id>` (``RiverItemID``): unique across sources
///   even when two feeds use the same guid, and stable across restarts and instances.
/// - **Partial failure is normal.** A source that fails or answers `304` keeps the items the
///   store holds for it (found by their key), so the river's last good state of every source is
///   the store's snapshot itself; nothing else is stored. A reload fails only when every source
///   was fetched and every one failed.
/// - **History.** A document that was read joins what the store held for its source
///   (``SourceHistory``): items that dropped off the document stay until retention removes them.
/// - **State.** Validators, back-off and next fetch of each source (``SourceState``) live in
///   this river's memory, as values; in a cluster, in a ``Feed/SourceStateStore`` (Redis:
///   ``useStateStore(_:)``), read at the start of each reload and written after each fetch.
/// - **Membership changes at runtime** (``add(_:)``, ``remove(key:)``, ``update(_:)``): each
///   reload fetches the members it started with; a member removed (or replaced) meanwhile has
///   its result dropped, and the merge takes the members as they are when it runs, so the
///   removed source's items leave with that reload. A new member has no state: the next reload
///   (scheduled or pulled) fetches it. The schedule is woken (``membershipChanges``).
/// - **The demo stands in** (`demo`) while the river has never had a member: a pull asks the
///   generator for news; the first member's first fetch replaces those items (their ids belong
///   to no source).
public final class River: FeedSource, SourceDirectory {
    /// One configured source: what is kept of it, its fetcher, and a serial that tells a member
    /// from an earlier one of the same key (a feed removed and added again during a fetch).
    struct Member: Sendable {
        var record: SubscriptionRecord
        let upstream: UpstreamSource
        let serial: Int
        var key: String { record.key }
        var subscription: Subscription { Subscription(url: record.url, title: record.title) }
    }

    /// The members and how to find them, changed under one lock.
    struct Membership: Sendable {
        var members: [Member] = []
        var index: [String: Int] = [:]
        var nextSerial = 0
        /// False until a first member joins: the demo stands in until then.
        var hasHadMembers = false

        mutating func reindex() {
            index = [:]
            for (position, member) in members.enumerated() { index[member.key] = position }
        }

        func member(_ key: String) -> Member? { index[key].map { members[$0] } }

        /// Appends the records whose keys are not members yet; returns them.
        mutating func append(_ records: [SubscriptionRecord], _ make: (SubscriptionRecord, Int) -> Member)
            -> [SubscriptionRecord]
        {
            var added: [SubscriptionRecord] = []
            for record in records where index[record.key] == nil {
                members.append(make(record, nextSerial))
                nextSerial += 1
                index[record.key] = members.count - 1
                hasHadMembers = true
                added.append(record)
            }
            return added
        }
    }

    /// What one fetch of one source brought.
    enum FetchResult: Sendable {
        case notModified(freshFor: Double?)
        case items(
            [FeedItem], UpstreamSource.Validators, freshFor: Double?, hints: FeedHints, recovered: String?)
        case failed(UpstreamError)
    }

    struct Known: Sendable {
        var states: [String: SourceState] = [:]
        var itemCounts: [String: Int] = [:]
        var failing = Set<String>()
        var generation = 0
        /// Members added since their last fetch: their state is a new one, whatever was stored.
        var fresh = Set<String>()
    }

    let membership = Mutex(Membership())
    /// Wakes the schedule when the members change.
    let membershipChanges = ChangeSignal()
    private let limits: FetchLimits
    /// The address policy of the owner's members (the operator's are fetched from anywhere).
    public let ownerPolicy: AddressPolicy
    /// What stands in while the river has never had a member (the demo generator), if anything.
    private let demo: (any FeedSource)?
    /// The rules for the next fetch.
    public let policy: RefreshPolicy
    /// Whether a schedule runs (reports then carry the next fetch).
    public let isScheduled: Bool
    private let concurrency: Int
    private let fetcher: HTTPFetcher
    /// Where source state is shared with other instances (Redis), once ``useStateStore(_:)``
    /// gave one; until then `known.states` is the only copy, kept as values: nothing to encode
    /// or decode on a reload.
    let sharedStore = Mutex<(any SourceStateStore)?>(nil)
    let known = Mutex(Known())
    /// Each source's state as last written or read, with its encoding: a load that finds the
    /// same bytes takes the state as it is.
    let lastEncodings = Mutex<[String: (bytes: [UInt8], state: SourceState)]>([:])
    let now: @Sendable () -> Date
    private let random: @Sendable () -> Double
    let metrics: RiverMetrics?
    /// How each source's items accumulate and which old ones go.
    public let history: SourceHistory

    /// Creates a river over `subscriptions`, the operator's (keys must be distinct:
    /// ``duplicateKey(in:)``). `refreshEvery` is the schedule's base interval (nil: pulls only);
    /// `now` and `random` are injected so tests control time and jitter.
    public convenience init(
        subscriptions: [Subscription], limits: FetchLimits, concurrency: Int = 16,
        refreshEvery: Duration? = nil, history: SourceHistory = SourceHistory(),
        registry: MetricsRegistry? = nil, now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.init(
            records: subscriptions.enumerated().map { position, subscription in
                SubscriptionRecord(
                    url: subscription.url, title: subscription.title, folder: subscription.folder,
                    origin: .commandLine, position: position + 1)
            }, limits: limits, concurrency: concurrency, refreshEvery: refreshEvery, history: history,
            registry: registry, now: now, random: random)
    }

    /// Creates a river over `records` (as kept in a database; keys distinct). The owner's members
    /// are fetched under `ownerPolicy`; `demo` stands in while the river has never had a member
    /// (`hasHadMembers` false and `records` empty).
    public init(
        records: [SubscriptionRecord], limits: FetchLimits, concurrency: Int = 16,
        refreshEvery: Duration? = nil, history: SourceHistory = SourceHistory(),
        registry: MetricsRegistry? = nil, ownerPolicy: AddressPolicy = .publicOnly,
        demo: (any FeedSource)? = nil, hasHadMembers: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.limits = limits
        self.ownerPolicy = ownerPolicy
        self.demo = demo
        let base = refreshEvery.map {
            Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18
        }
        policy = RefreshPolicy(base: base ?? 900)
        isScheduled = base != nil
        self.concurrency = max(1, concurrency)
        fetcher = HTTPFetcher(limits: limits)
        self.now = now
        self.random = random
        self.history = history
        metrics = registry.map { RiverMetrics(registry: $0) }
        membership.withLock { membership in
            membership.hasHadMembers = hasHadMembers
            _ = membership.append(records, makeMember)
        }
        for key in keys { metrics?.register(key: key) }
    }

    func makeMember(_ record: SubscriptionRecord, serial: Int) -> Member {
        Member(
            record: record, upstream: UpstreamSource(url: record.url, limits: limits, now: now),
            serial: serial)
    }

    /// Two subscriptions with the same key (the same URL up to case and fragment), if any.
    public static func duplicateKey(in subscriptions: [Subscription]) -> (Subscription, Subscription)? {
        var seen: [String: Subscription] = [:]
        for subscription in subscriptions {
            let key = SourceKey.of(subscription.url)
            if let first = seen[key] { return (first, subscription) }
            seen[key] = subscription
        }
        return nil
    }

    /// Keeps source state in `store` from now on (Redis, shared by a cluster). What this river
    /// learnt so far (the startup fetch: validators, next fetch slots) is copied to it for the
    /// sources it holds nothing for, so the first scheduled fetches are conditional and spread.
    public func useStateStore(_ store: any SourceStateStore) async {
        let stored = await store.load(keys: keys)
        let learnt = known.withLock { $0.states }
        for (key, state) in learnt where stored[key] == nil {
            await store.save(key: key, state: state.encoded())
        }
        sharedStore.withLock { $0 = store }
    }

    /// The keys, in configuration order.
    public var keys: [String] { membership.withLock { $0.members.map(\.key) } }

    /// Every member as kept, in order.
    public var records: [SubscriptionRecord] { membership.withLock { $0.members.map(\.record) } }

    /// The member with `key`, if there is one.
    public func record(forKey key: String) -> SubscriptionRecord? {
        membership.withLock { $0.member(key)?.record }
    }

    /// Whether the demo stands in (no member ever joined).
    public var isDemo: Bool { membership.withLock { !$0.hasHadMembers } }

    // MARK: FeedSource

    /// Fetches every source (a pull) or the due ones (the schedule) and returns the merged items.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        let scheduled = ReloadTrigger.isScheduled
        let (members, hasHadMembers) = membership.withLock { ($0.members, $0.hasHadMembers) }
        if !hasHadMembers {
            // The demo: news on a pull, nothing on the schedule.
            guard let demo, !scheduled else { return current }
            return try await demo.fetch(current: current)
        }
        let keys = members.map(\.key)
        var states = await loadStates(keys: keys)
        var index: [String: Int] = [:]
        for (position, member) in members.enumerated() { index[member.key] = position }
        var held = Self.group(current, keys: index)
        let start = now()
        // The schedule takes what is due within a short window, so sources whose slots are a
        // few milliseconds apart share one reload (and one new version) instead of one each.
        let window = min(1, policy.base / 10)
        let selected = members.indices.filter { position in
            let member = members[position]
            let state = states[member.key] ?? SourceState()
            return scheduled
                ? policy.isDue(state, key: member.key, now: start, window: window)
                : policy.mayPull(state, now: start)
        }
        // Items of sources no longer members: this reload leaves them out even with nothing to fetch.
        let dropsItems = held.values.reduce(0, { $0 + $1.count }) != current.count
        if selected.isEmpty, !dropsItems {
            if scheduled || members.isEmpty { return current }
            throw FeedError("every source asked us to wait (Retry-After); the feed stays as it was")
        }
        let results =
            selected.isEmpty ? [] : await fetchAll(selected.map { members[$0] }, states: states, held: held)
        // The members as they are now: results of members removed during the fetch are dropped.
        let live = membership.withLock { $0.members }
        let liveSerials = Set(live.map(\.serial))
        var failures: [(Member, UpstreamError)] = []
        var fetched: [String: [FeedItem]] = [:]
        for (member, result) in results where liveSerials.contains(member.serial) {
            let before = states[member.key] ?? SourceState()
            let after: SourceState
            let finished = now()
            switch result {
            case .notModified(let freshFor):
                after = policy.succeeded(
                    before, key: member.key, now: finished, newItems: false, freshFor: freshFor)
            case .items(let items, let validators, let freshFor, let hints, let recovered):
                let heldIDs = Set((held[member.key] ?? []).map(\.id))
                let prefixed = items.map { item in
                    var copy = item
                    copy.id = RiverItemID.join(key: member.key, id: item.id)
                    return copy
                }
                var updated = before
                updated.etag = validators.etag
                updated.lastModified = validators.lastModified
                updated.hints = hints
                updated.recovered = recovered
                after = policy.succeeded(
                    updated, key: member.key, now: finished,
                    newItems: prefixed.contains { !heldIDs.contains($0.id) }, freshFor: freshFor)
                fetched[member.key] = history.merge(
                    held: held[member.key] ?? [], document: prefixed, now: finished)
            case .failed(let error):
                after = policy.failed(before, now: finished, error: error, random: random())
                failures.append((member, error))
            }
            states[member.key] = after
            await saveState(after, key: member.key)
        }
        if live.map(\.serial) != members.map(\.serial) {
            var liveIndex: [String: Int] = [:]
            for (position, member) in live.enumerated() { liveIndex[member.key] = position }
            held = Self.group(current, keys: liveIndex)
            states = states.filter { liveIndex[$0.key] != nil }
        }
        let heldCount = held.values.reduce(0, { $0 + $1.count })
        if !failures.isEmpty, failures.count == live.count, heldCount == current.count {
            record(states, itemCounts: nil)
            throw Self.allFailed(failures)
        }
        if fetched.isEmpty, heldCount == current.count {
            // Nothing new from any source, and every item held belongs to one: the river is
            // the store's items as they are (the store then finds them unchanged, unsorted).
            record(states, itemCounts: held.mapValues(\.count))
            return current
        }
        var merged: [FeedItem] = []
        var counts: [String: Int] = [:]
        for member in live {
            let items = fetched[member.key] ?? held[member.key] ?? []
            counts[member.key] = items.count
            merged.append(contentsOf: items)
        }
        record(states, itemCounts: counts)
        return merged
    }

    /// Runs the fetches of `selected`, at most `concurrency` at a time, as one ``FetchBatch``;
    /// results in completion order. This task takes each result off the batch's stream; only a
    /// body gets a task of its own, to be parsed beside the others.
    private func fetchAll(_ selected: [Member], states: [String: SourceState], held: [String: [FeedItem]])
        async -> [(Member, FetchResult)]
    {
        let feeds = selected.map { member -> HTTPFetcher.FeedRequest in
            let state = states[member.key] ?? SourceState()
            // Validators are only worth sending while the store holds what they describe.
            let holdsItems = held[member.key]?.isEmpty == false
            // The owner's feeds under the policy (every address connected to); the operator's
            // anywhere, as the operator chose them.
            return HTTPFetcher.FeedRequest(
                url: member.upstream.url, etag: holdsItems ? state.etag : nil,
                lastModified: holdsItems ? state.lastModified : nil,
                policy: member.record.origin == .owner ? ownerPolicy : nil)
        }
        let completions = fetcher.fetchAll(feeds, concurrency: concurrency)
        let metrics = metrics
        return await withTaskGroup(of: (Member, FetchResult).self) { parses in
            var results: [(Member, FetchResult)] = []
            results.reserveCapacity(selected.count)
            for await completion in completions {
                let member = selected[completion.index]
                let result: FetchResult
                switch completion.result {
                case .success(.notModified(let freshFor)):
                    result = .notModified(freshFor: freshFor)
                case .failure(let error):
                    result = .failed(error)
                case .success(.body(let body)):
                    let heldItems = held[member.key] ?? []
                    parses.addTask {
                        let began = ContinuousClock.now
                        let result = Self.parse(body, of: member, heldItems: heldItems)
                        metrics?.record(
                            key: member.key, result: result,
                            duration: completion.duration + (ContinuousClock.now - began))
                        return (member, result)
                    }
                    continue
                }
                metrics?.record(key: member.key, result: result, duration: completion.duration)
                results.append((member, result))
            }
            for await parsed in parses { results.append(parsed) }
            return results
        }
    }

    /// What a body fetched for `member` holds; `heldItems` are the store's items of that source.
    private static func parse(_ body: FetchedBody, of member: Member, heldItems: [FeedItem]) -> FetchResult {
        do {
            // `current` is an autoclosure: the items with the feed's own ids are made only if
            // the body brings undated items.
            switch try member.upstream.read(body, current: withFeedIDs(heldItems)) {
            case .notModified(let freshFor): return .notModified(freshFor: freshFor)
            case .items(let items, let validators, let freshFor, let hints, let recovered):
                return .items(items, validators, freshFor: freshFor, hints: hints, recovered: recovered)
            }
        } catch {
            return .failed(error)
        }
    }

    /// `items` (one source's, as the store holds them) with their feed's own ids.
    private static func withFeedIDs(_ items: [FeedItem]) -> [FeedItem] {
        items.map { item in
            var copy = item
            copy.id = String(RiverItemID.feedID(of: item.id))
            return copy
        }
    }

    /// The store's items by source key (ids as the store has them); items of sources no longer
    /// configured are left out, so removing a source removes its items.
    static func group(_ items: [FeedItem], keys: [String: Int]) -> [String: [FeedItem]] {
        var groups: [String: [FeedItem]] = [:]
        for item in items {
            guard let key = RiverItemID.key(of: item.id), keys[String(key)] != nil else { continue }
            groups[String(key), default: []].append(item)
        }
        return groups
    }

    private static func allFailed(_ failures: [(Member, UpstreamError)]) -> FeedError {
        if failures.count == 1, let (member, error) = failures.first {
            return FeedError("upstream \(member.upstream.displayURL): \(error.message)")
        }
        let shown = failures.prefix(3).map { "\($0.0.upstream.displayURL): \($0.1.message)" }
        let more = failures.count > 3 ? "; and \(failures.count - 3) more" : ""
        return FeedError("all \(failures.count) sources failed: \(shown.joined(separator: "; "))\(more)")
    }
}
