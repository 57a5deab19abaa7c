/// Where a cluster's river keeps each source's state (validators, back-off, next fetch) between
/// fetches: a Redis hash, so that another or a restarted instance carries on where the last
/// fetch left off. (A river on its own keeps its states as values, in memory, with no store.) The state is an opaque, versioned
/// encoding owned by the river; the store only keeps bytes per source key.
public protocol SourceStateStore: Sendable {
    /// The stored state of each of `keys` that has one.
    func load(keys: [String]) async -> [String: [UInt8]]
    /// Stores one source's state.
    func save(key: String, state: [UInt8]) async
    /// Forgets one source's state: the source left the river (a later subscription to it starts
    /// afresh, and the store does not keep growing with removed sources).
    func remove(key: String) async
}
