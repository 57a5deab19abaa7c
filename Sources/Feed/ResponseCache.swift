import Synchronization

/// Rendered bodies for the current version only: a newer version empties it, so nothing stale
/// is ever served and memory stays bounded by the variants of one version.
final class ResponseCache<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var version = -1
        var entries: [Key: [UInt8]] = [:]
    }

    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The cached body for `key` at `version`, or the result of `make`, stored for next time.
    /// Rendering happens outside the lock; two threads may render the same body once each.
    func body(version: Int, key: Key, make: () throws -> [UInt8]) rethrows -> [UInt8] {
        let cached = state.withLock { state -> [UInt8]? in
            state.version == version ? state.entries[key] : nil
        }
        if let cached { return cached }
        let fresh = try make()
        state.withLock { state in
            if version > state.version {
                state.version = version
                state.entries.removeAll(keepingCapacity: true)
            }
            guard version == state.version else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = fresh
        }
        return fresh
    }
}
