/// What a reload produced, whichever backend ran it.
public struct ReloadOutcome: Sendable {
    /// The snapshot after the reload.
    public var snapshot: FeedSnapshot
    /// Which reload this was (1, 2, ...); callers sharing one reload see the same number.
    public var reloadNumber: Int

    /// Creates an outcome.
    public init(snapshot: FeedSnapshot, reloadNumber: Int) {
        self.snapshot = snapshot
        self.reloadNumber = reloadNumber
    }
}
