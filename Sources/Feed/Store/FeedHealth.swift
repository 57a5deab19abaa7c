/// What `GET /healthz` reports beyond the version: whether the backend is fully working, and
/// named details (e.g. `"redis": "unreachable"`), written in order after `status` and `version`.
public struct FeedHealth: Sendable, Equatable {
    /// `true` while the backend works only in part (reads are served, reloads are refused).
    public var degraded: Bool
    /// Extra string fields, in order.
    public var details: [Detail]

    /// One named string field of the health document.
    public struct Detail: Sendable, Equatable {
        /// The JSON key.
        public var name: String
        /// The JSON string value.
        public var value: String

        /// Creates a detail.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a health report.
    public init(degraded: Bool = false, details: [Detail] = []) {
        self.degraded = degraded
        self.details = details
    }

    /// Healthy, nothing to add: the in-memory store.
    public static let ok = FeedHealth()
}
