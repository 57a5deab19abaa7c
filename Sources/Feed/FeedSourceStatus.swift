/// How the last fetch from a real upstream went, for `/healthz`'s `"source"` field.
public struct FeedSourceStatus: Sendable, Equatable {
    /// Whether the last fetch and parse succeeded.
    public var ok: Bool
    /// Why it failed, when it did.
    public var error: String?

    /// Creates a status.
    public init(ok: Bool, error: String? = nil) {
        self.ok = ok
        self.error = error
    }
}
