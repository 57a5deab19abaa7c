import Synchronization

/// Made thumbnails, bounded by the bytes they hold; the least recently used go first.
///
/// Recency is a tick per use; eviction scans for the oldest tick. That costs a pass over a few
/// thousand entries, only when a new thumbnail is inserted, which has just cost a fetch and a
/// resize; a hit costs a dictionary lookup and an increment.
final class ThumbnailCache: Sendable {
    private struct Slot {
        var entry: ThumbnailEntry
        var lastUse: UInt64
    }

    private struct State {
        var slots: [ThumbnailKey: Slot] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    private let state = Mutex(State())
    /// The bound, in ``ThumbnailEntry/cost`` bytes.
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The bytes held and the entries.
    var usage: (bytes: Int, entries: Int) {
        state.withLock { ($0.bytes, $0.slots.count) }
    }

    /// The entry for `key`, marked as just used.
    func lookup(_ key: ThumbnailKey) -> ThumbnailEntry? {
        state.withLock { state in
            guard var slot = state.slots[key] else { return nil }
            state.tick += 1
            slot.lastUse = state.tick
            state.slots[key] = slot
            return slot.entry
        }
    }

    /// Keeps `entry`, evicting the least recently used until it fits. An entry larger than the
    /// whole cache is not kept.
    func insert(_ entry: ThumbnailEntry, for key: ThumbnailKey) {
        guard entry.cost <= capacity else { return }
        state.withLock { state in
            if let old = state.slots.removeValue(forKey: key) { state.bytes -= old.entry.cost }
            while state.bytes + entry.cost > capacity,
                let oldest = state.slots.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                state.bytes -= oldest.value.entry.cost
                state.slots.removeValue(forKey: oldest.key)
            }
            state.tick += 1
            state.slots[key] = Slot(entry: entry, lastUse: state.tick)
            state.bytes += entry.cost
        }
    }
}
