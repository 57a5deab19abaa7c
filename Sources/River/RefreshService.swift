public import Feed
public import Foundation
public import Logging
import Synchronization

/// The scheduled refresh (`--refresh-every`): a service with a lifecycle that sleeps (on an
/// injected clock) until the river's next source is due, then asks the backend for a reload
/// like a pull does, marked as scheduled (``ReloadTrigger``) so only due sources are fetched.
///
/// With `--redis` every instance runs one; the backend's lease makes each reload cluster-wide
/// and the source state in Redis makes the others find nothing due, so each source is fetched
/// once per interval by whichever instance got there first. New items publish a new version,
/// which reaches open pages through the event stream like any other. A change of the river's
/// members wakes the loop to look again (the clock's sleep must end when cancelled, as real
/// clocks' sleeps do).
public final class RefreshService: Sendable {
    private let river: River
    private let backend: any FeedBackend
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// The shortest sleep between two looks, so a source that is due but held back (fresh, or
    /// waiting for another instance's reload) does not turn the loop into a spin.
    private let minimumSleep: Duration
    /// The pause after a failed scheduled reload: the base interval, at most 30 s.
    private let retryPause: Duration

    /// Creates the service; `start()` runs it.
    public init(
        river: River, backend: any FeedBackend, clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() }, logger: Logger = Logger(quiet: true)
    ) {
        self.river = river
        self.backend = backend
        self.clock = clock
        self.now = now
        self.logger = logger
        minimumSleep = .milliseconds(Int64(min(1000, max(20, river.policy.base * 1000 / 20))))
        retryPause = .milliseconds(Int64(min(30, river.policy.base) * 1000))
    }

    /// Starts the loop (once; later calls do nothing).
    public func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in await run() }
        }
    }

    /// Stops the loop and waits for it (a reload in flight is allowed to finish).
    public func stop() async {
        let running = task.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }

    private func run() async {
        var failedLastTime = false
        while !Task.isCancelled {
            let due = await river.nextDue()
            let wait = max(due.timeIntervalSince(now()), 0)
            var sleep = max(Duration.milliseconds(Int64(wait * 1000)), minimumSleep)
            // The backend itself failing (Redis down) makes every source look due: wait a
            // while before asking again instead of logging a failure per short sleep.
            if failedLastTime { sleep = max(sleep, retryPause) }
            let changes = river.membershipChanges
            let seen = changes.count
            // A member added meanwhile may be due before this sleep ends: its change wakes the
            // loop, which looks again (the new member's first fetch is its subscriber's).
            let pause = sleep
            let slept = await withTaskGroup(of: Bool.self) { group in
                let clock = clock
                group.addTask {
                    do {
                        try await clock.sleep(for: pause)
                        return true
                    } catch {
                        return false
                    }
                }
                group.addTask {
                    await changes.wait(after: seen)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
            if Task.isCancelled { return }  // stopping
            guard slept else { continue }
            failedLastTime = !(await refreshOnce())
        }
    }

    /// One scheduled reload now (public for tests that drive the schedule by hand); false when
    /// the reload failed.
    @discardableResult
    public func refreshOnce() async -> Bool {
        let before = backend.currentVersion
        let result: Result<ReloadOutcome, FeedError> = await ReloadTrigger.$isScheduled.withValue(true) {
            do {
                return .success(try await backend.reload())
            } catch {
                return .failure((error as? FeedError) ?? FeedError("\(error)"))
            }
        }
        switch result {
        case .success(let outcome) where outcome.snapshot.version != before:
            logger.notice("scheduled refresh: version \(outcome.snapshot.version)")
        case .success: break
        case .failure(let error):
            logger.warning("scheduled refresh failed: \(error.message)")
            return false
        }
        return true
    }
}
