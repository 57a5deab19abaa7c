/// The reload in flight, if any, for an actor whose callers must share it: the first caller
/// starts the task, everyone arriving before it ends joins the same one.
///
/// Kept as actor state (a value, mutated only on the actor), so joining needs no lock.
public struct SingleFlight: Sendable {
    private var running: Task<Result<ReloadOutcome, FeedError>, Never>?

    /// No reload in flight.
    public init() {}

    /// Whether a reload is in flight.
    public var isRunning: Bool { running != nil }

    /// The task in flight, or the one `start` makes (then remembered until ``finish()``).
    public mutating func join(
        _ start: () -> Task<Result<ReloadOutcome, FeedError>, Never>
    ) -> Task<Result<ReloadOutcome, FeedError>, Never> {
        if let running { return running }
        let task = start()
        running = task
        return task
    }

    /// Forgets the task: the next caller starts a new reload. Call when the reload ends.
    public mutating func finish() {
        running = nil
    }
}
