import HTTPServer
import Synchronization

/// Values (rendered responses) for the current version only: a newer version empties it, so
/// nothing stale is ever served and memory stays bounded by the variants of one version.
final class ResponseCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var version = -1
        var entries: [Key: Value] = [:]
        /// The entry found last: most requests ask for the same few keys (the first page), and
        /// comparing one key is cheaper than hashing it.
        var recent: (key: Key, value: Value)?

        /// The value for `key` at `version`, remembered as the recent entry.
        mutating func find(_ key: Key, at version: Int) -> Value? {
            guard self.version == version else { return nil }
            if let recent, recent.key == key { return recent.value }
            guard let value = entries[key] else { return nil }
            recent = (key, value)
            return value
        }
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)

    /// Lookups answered from the cache, and values that had to be built (for metrics).
    var counts: (hits: Int, misses: Int) {
        (hits.load(ordering: .relaxed), misses.load(ordering: .relaxed))
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached value for `key` if the cache holds `version`.
    func lookup(version: Int, key: Key) -> Value? {
        let found = state.withLock { state in state.find(key, at: version) }
        if found != nil { hits.add(1, ordering: .relaxed) }
        return found
    }

    /// The cached value for `key` at `version`, or the result of `make`, stored for next time.
    /// Rendering happens outside the lock; two threads may render the same value once each.
    func value(version: Int, key: Key, make: () throws -> Value) rethrows -> Value {
        let cached = state.withLock { state in state.find(key, at: version) }
        if let cached {
            hits.add(1, ordering: .relaxed)
            return cached
        }
        misses.add(1, ordering: .relaxed)
        let fresh = try make()
        state.withLock { state in
            if version > state.version {
                state.version = version
                state.entries.removeAll(keepingCapacity: true)
                state.recent = nil
            }
            guard version == state.version else { return }
            if state.entries.count >= capacity {
                state.entries.removeAll(keepingCapacity: true)
                state.recent = nil
            }
            state.entries[key] = fresh
        }
        return fresh
    }
}
