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
public final class River: FeedSource, SourceDirectory {
    /// One configured source.
    struct Member: Sendable {
        let key: String
        let subscription: Subscription
        let upstream: UpstreamSource
    }

    /// What one fetch of one source brought.
    enum FetchResult: Sendable {
        case notModified(freshFor: Double?)
        case items(
            [FeedItem], UpstreamSource.Validators, freshFor: Double?, hints: FeedHints, recovered: String?)
        case failed(UpstreamError)
    }

    private struct Known: Sendable {
        var states: [String: SourceState] = [:]
        var itemCounts: [String: Int] = [:]
        var failing = Set<String>()
        var generation = 0
    }

    let members: [Member]
    private let index: [String: Int]
    /// The rules for the next fetch.
    public let policy: RefreshPolicy
    /// Whether a schedule runs (reports then carry the next fetch).
    public let isScheduled: Bool
    private let concurrency: Int
    private let fetcher: HTTPFetcher
    /// Where source state is shared with other instances (Redis), once ``useStateStore(_:)``
    /// gave one; until then `known.states` is the only copy, kept as values: nothing to encode
    /// or decode on a reload.
    private let sharedStore = Mutex<(any SourceStateStore)?>(nil)
    private let known = Mutex(Known())
    /// Each source's state as last written or read, with its encoding: a load that finds the
    /// same bytes takes the state as it is.
    private let lastEncodings = Mutex<[String: (bytes: [UInt8], state: SourceState)]>([:])
    private let now: @Sendable () -> Date
    private let random: @Sendable () -> Double
    private let metrics: RiverMetrics?
    /// How each source's items accumulate and which old ones go.
    public let history: SourceHistory

    /// Creates a river over `subscriptions` (keys must be distinct: ``duplicateKey(in:)``).
    /// `refreshEvery` is the schedule's base interval (nil: pulls only); `now` and `random` are
    /// injected so tests control time and jitter.
    public init(
        subscriptions: [Subscription], limits: FetchLimits, concurrency: Int = 16,
        refreshEvery: Duration? = nil, history: SourceHistory = SourceHistory(),
        registry: MetricsRegistry? = nil, now: @escaping @Sendable () -> Date = { Date() },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        members = subscriptions.map {
            Member(
                key: SourceKey.of($0.url), subscription: $0,
                upstream: UpstreamSource(url: $0.url, limits: limits, now: now))
        }
        var index: [String: Int] = [:]
        for (position, member) in members.enumerated() { index[member.key] = position }
        self.index = index
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
        let keys = members.map(\.key)
        metrics = registry.map { RiverMetrics(keys: keys, registry: $0) }
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
    public var keys: [String] { members.map(\.key) }

    // MARK: FeedSource

    /// Fetches every source (a pull) or the due ones (the schedule) and returns the merged items.
    public func fetch(current: [FeedItem]) async throws -> [FeedItem] {
        let scheduled = ReloadTrigger.isScheduled
        var states = await loadStates()
        let held = Self.group(current, keys: index)
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
        if selected.isEmpty {
            if scheduled || members.isEmpty { return current }
            throw FeedError("every source asked us to wait (Retry-After); the feed stays as it was")
        }
        let results = await fetchAll(selected, states: states, held: held)
        var failures: [(Member, UpstreamError)] = []
        var fetched: [String: [FeedItem]] = [:]
        for (position, result) in results {
            let member = members[position]
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
        if failures.count == members.count {
            record(states, itemCounts: nil)
            throw Self.allFailed(failures)
        }
        if fetched.isEmpty, held.values.reduce(0, { $0 + $1.count }) == current.count {
            // Nothing new from any source, and every item held belongs to one: the river is
            // the store's items as they are (the store then finds them unchanged, unsorted).
            record(states, itemCounts: held.mapValues(\.count))
            return current
        }
        var merged: [FeedItem] = []
        var counts: [String: Int] = [:]
        for member in members {
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
    private func fetchAll(_ selected: [Int], states: [String: SourceState], held: [String: [FeedItem]]) async
        -> [(Int, FetchResult)]
    {
        let feeds = selected.map { position -> (url: URL, etag: String?, lastModified: String?) in
            let member = members[position]
            let state = states[member.key] ?? SourceState()
            // Validators are only worth sending while the store holds what they describe.
            let holdsItems = held[member.key]?.isEmpty == false
            return (member.upstream.url, holdsItems ? state.etag : nil, holdsItems ? state.lastModified : nil)
        }
        let completions = fetcher.fetchAll(feeds, concurrency: concurrency)
        let metrics = metrics
        return await withTaskGroup(of: (Int, FetchResult).self) { parses in
            var results: [(Int, FetchResult)] = []
            results.reserveCapacity(selected.count)
            for await completion in completions {
                let position = selected[completion.index]
                let member = members[position]
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
                        return (position, result)
                    }
                    continue
                }
                metrics?.record(key: member.key, result: result, duration: completion.duration)
                results.append((position, result))
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

    // MARK: State

    private func loadStates() async -> [String: SourceState] {
        guard let store = sharedStore.withLock({ $0 }) else { return known.withLock { $0.states } }
        let stored = await store.load(keys: keys)
        var states: [String: SourceState] = [:]
        states.reserveCapacity(stored.count)
        lastEncodings.withLock { last in
            for (key, bytes) in stored {
                // What this river wrote last (or read last) needs no decoding: most loads read
                // back this instance's own saves, and JSON decoding is what a reload of 304s
                // would otherwise spend most of its Swift time on.
                if let remembered = last[key], remembered.bytes == bytes {
                    states[key] = remembered.state
                } else {
                    let state = SourceState.decode(bytes)
                    states[key] = state
                    last[key] = (bytes, state)
                }
            }
        }
        known.withLock { known in
            for (key, state) in states { known.states[key] = state }
        }
        return states
    }

    private func saveState(_ state: SourceState, key: String) async {
        guard let store = sharedStore.withLock({ $0 }) else {
            known.withLock { $0.states[key] = state }
            return
        }
        let bytes = state.encoded()
        lastEncodings.withLock { $0[key] = (bytes, state) }
        await store.save(key: key, state: bytes)
    }

    private func record(_ states: [String: SourceState], itemCounts: [String: Int]?) {
        known.withLock { known in
            known.states = states
            if let itemCounts { known.itemCounts = itemCounts }
            let failing = Set(states.filter { $0.value.lastError != nil }.keys)
            if failing != known.failing {
                known.failing = failing
                known.generation += 1
            }
        }
    }

    /// Counts each source's items in `items` (a snapshot restored from a database or joined
    /// from Redis) for the reports, until the next reload counts what it merged.
    public func countHeld(_ items: [FeedItem]) {
        let counts = Self.group(items, keys: index).mapValues(\.count)
        known.withLock { $0.itemCounts = counts }
    }

    /// Re-reads the shared state (what another instance fetched) and returns when the schedule
    /// should next look: the earliest time any source is due.
    public func nextDue() async -> Date {
        let states = await loadStates()
        record(states.merging(known.withLock { $0.states }) { stored, _ in stored }, itemCounts: nil)
        let start = now()
        var earliest = start.addingTimeInterval(policy.base)
        for member in members {
            let state = states[member.key] ?? SourceState()
            var at = state.nextFetch ?? start
            if let fresh = state.freshUntil, fresh > at { at = fresh }
            if let notBefore = state.notBefore, notBefore > at { at = notBefore }
            if at < earliest { earliest = at }
        }
        return earliest
    }

    // MARK: SourceDirectory

    /// Every source and how its fetches go.
    public var reports: [SourceReport] {
        let known = known.withLock { $0 }
        return members.map { member in
            let state = known.states[member.key] ?? SourceState()
            return SourceReport(
                label: label(member, state), feedURL: Self.withoutCredentials(member.subscription.url),
                displayURL: member.upstream.displayURL, lastSuccess: state.lastSuccess,
                lastError: state.lastError, recovered: state.recovered,
                failingSince: state.failingSince, consecutiveFailures: state.failures,
                nextFetch: isScheduled ? state.nextFetch : nil, items: known.itemCounts[member.key] ?? 0)
        }
    }

    /// Grows whenever a source starts or stops failing.
    public var statusGeneration: Int { known.withLock { $0.generation } }

    /// The source of an item id.
    public func label(forItemID id: String) -> SourceLabel? {
        RiverItemID.key(of: id).flatMap { label(forKey: String($0)) }
    }

    /// The label of the source with `key`.
    public func label(forKey key: String) -> SourceLabel? {
        guard let position = index[key] else { return nil }
        let member = members[position]
        return label(member, known.withLock { $0.states[member.key] } ?? SourceState())
    }

    private func label(_ member: Member, _ state: SourceState) -> SourceLabel {
        let title =
            member.subscription.title ?? state.hints.title ?? member.subscription.url.host ?? member.key
        return SourceLabel(key: member.key, title: title, siteURL: state.hints.siteURL)
    }

    private static func withoutCredentials(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        components.user = nil
        components.password = nil
        return components.string ?? ""
    }
}
