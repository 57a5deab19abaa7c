public import Feed
public import Foundation
import Synchronization

/// Each source's state (validators, back-off, next fetch): kept as values in memory, or in a
/// shared ``Feed/SourceStateStore`` once ``River/useStateStore(_:)`` gave one, and what the
/// schedule reads to know when to look next.
extension River {
    func loadStates(keys: [String]) async -> [String: SourceState] {
        guard let store = sharedStore.withLock({ $0 }) else {
            return known.withLock { known in known.states.filter { !known.fresh.contains($0.key) } }
        }
        let stored = await store.load(keys: keys)
        let fresh = known.withLock { $0.fresh }
        var states: [String: SourceState] = [:]
        states.reserveCapacity(stored.count)
        lastEncodings.withLock { last in
            for (key, bytes) in stored where !fresh.contains(key) {
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

    func saveState(_ state: SourceState, key: String) async {
        // A source removed while it was fetched keeps no state (``forgetState(of:)``).
        guard membership.withLock({ $0.index[key] != nil }) else { return }
        guard let store = sharedStore.withLock({ $0 }) else {
            known.withLock { known in
                known.states[key] = state
                known.fresh.remove(key)
            }
            return
        }
        known.withLock { _ = $0.fresh.remove(key) }
        let bytes = state.encoded()
        lastEncodings.withLock { $0[key] = (bytes, state) }
        await store.save(key: key, state: bytes)
    }

    func record(_ states: [String: SourceState], itemCounts: [String: Int]?) {
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
        let index = membership.withLock { $0.index }
        let counts = Self.group(items, keys: index).mapValues(\.count)
        known.withLock { $0.itemCounts = counts }
    }

    /// Re-reads the shared state (what another instance fetched) and returns when the schedule
    /// should next look: the earliest time any source is due.
    public func nextDue() async -> Date {
        let members = membership.withLock { $0.members }
        let states = await loadStates(keys: members.map(\.key))
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
}
