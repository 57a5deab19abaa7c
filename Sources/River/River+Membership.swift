public import Feed
import Synchronization

/// Sources joining, leaving and changing while the river runs (the subscriptions of the
/// database, ``RiverSubscriptions``): each change is taken under the membership lock, clears
/// what the river knew of the source, and wakes the schedule.
extension River {
    /// Adds `records` whose keys are not members yet (others are left out), at the end; returns
    /// those added. They start with no state (whatever a state store kept of an earlier
    /// subscription to the same feed is ignored until their first fetch saves a new one): the
    /// next reload, scheduled or pulled, fetches them; the schedule wakes.
    @discardableResult
    public func add(_ records: [SubscriptionRecord]) -> [SubscriptionRecord] {
        let added = membership.withLock { membership -> [SubscriptionRecord] in
            membership.append(records, makeMember)
        }
        guard !added.isEmpty else { return [] }
        for record in added { metrics?.register(key: record.key) }
        known.withLock { known in
            for record in added {
                known.states[record.key] = nil
                known.itemCounts[record.key] = 0
                known.fresh.insert(record.key)
            }
            known.generation += 1
        }
        membershipChanges.signal()
        return added
    }

    /// Removes the member with `key` (false when there is none): a fetch of it in flight is
    /// dropped, and the next reload leaves its items out.
    @discardableResult
    public func remove(key: String) -> Bool {
        let removed = membership.withLock { membership -> Bool in
            guard let position = membership.index[key] else { return false }
            membership.members.remove(at: position)
            membership.reindex()
            return true
        }
        guard removed else { return false }
        known.withLock { known in
            known.states[key] = nil
            known.itemCounts[key] = nil
            known.failing.remove(key)
            known.fresh.remove(key)
            known.generation += 1
        }
        membershipChanges.signal()
        return true
    }

    /// Forgets the state of a removed source `key` in the shared store (the database's `sources`
    /// row, Redis's hash field); in memory ``remove(key:)`` already dropped it.
    public func forgetState(of key: String) async {
        guard record(forKey: key) == nil, let store = sharedStore.withLock({ $0 }) else { return }
        await store.remove(key: key)
    }

    /// Takes `record`'s title and folder for the member of its key (false when there is none).
    @discardableResult
    public func update(_ record: SubscriptionRecord) -> Bool {
        let updated = membership.withLock { membership -> Bool in
            guard let position = membership.index[record.key] else { return false }
            membership.members[position].record.title = record.title
            membership.members[position].record.folder = record.folder
            return true
        }
        // Labels changed: pages cached at this generation are stale.
        if updated { known.withLock { $0.generation += 1 } }
        return updated
    }

    /// Whether the member with `key` was fetched (or failed) since it joined.
    public func hasBeenFetched(key: String) -> Bool {
        known.withLock { !$0.fresh.contains(key) }
    }
}
