import Synchronization

/// Where a river keeps each source's state (validators, back-off, next fetch) between fetches:
/// in memory for one process, in a Redis hash for a cluster, so that another or a restarted
/// instance carries on where the last fetch left off. The state is an opaque, versioned
/// encoding owned by the river; the store only keeps bytes per source key.
public protocol SourceStateStore: Sendable {
    /// The stored state of each of `keys` that has one.
    func load(keys: [String]) async -> [String: [UInt8]]
    /// Stores one source's state.
    func save(key: String, state: [UInt8]) async
}

/// Source state in this process's memory (one instance, the default).
public final class MemorySourceStates: SourceStateStore {
    private let states = Mutex<[String: [UInt8]]>([:])

    /// Creates an empty store.
    public init() {}

    /// The stored state of each of `keys` that has one.
    public func load(keys: [String]) async -> [String: [UInt8]] {
        states.withLock { states in
            var found: [String: [UInt8]] = [:]
            for key in keys { found[key] = states[key] }
            return found
        }
    }

    /// Stores one source's state.
    public func save(key: String, state: [UInt8]) async {
        states.withLock { $0[key] = state }
    }
}
