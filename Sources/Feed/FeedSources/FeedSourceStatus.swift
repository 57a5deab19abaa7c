/// How the last fetch from a real upstream went, for `/healthz`'s `"source"` field.
public struct FeedSourceStatus: Sendable, Equatable {
    /// Whether the last fetch and parse succeeded.
    public var ok: Bool
    /// Why it failed, when it did.
    public var error: String?
    /// When it succeeded only because the parser recovered from an ill-formed document: what it
    /// recovered from, in one line.
    public var recovered: String?

    /// Creates a status.
    public init(ok: Bool, error: String? = nil, recovered: String? = nil) {
        self.ok = ok
        self.error = error
        self.recovered = recovered
    }
}
