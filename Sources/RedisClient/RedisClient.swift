import Dispatch
import Foundation
import Synchronization

/// A command connection on a thread of its own: callers `await` a reply while the blocking
/// hiredis call runs on that thread, one command at a time, in order.
///
/// A broken connection is re-established by the next command; after a failed attempt further
/// attempts back off (100 ms doubling to 2 s) and commands meanwhile fail at once, so a refresh
/// never waits longer than one connect plus one command timeout.
public final class RedisClient: Sendable {
    private typealias Job = @Sendable (Session) -> Void

    /// Thread-confined state: the connection and its backoff.
    private final class Session {
        let connection: RedisConnection
        var failures = 0
        var retryAt: ContinuousClock.Instant?
        var lastError: RedisError?

        init(configuration: RedisConfiguration) {
            connection = RedisConnection(configuration: configuration)
        }
    }

    private struct Queue {
        var jobs: [Job] = []
        var stopped = false
    }

    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let reachable = Atomic<Bool>(true)

    /// Starts the client's thread; the first command connects.
    public init(configuration: RedisConfiguration, name: String = "redis-client") {
        let thread = Thread { [self] in
            let session = Session(configuration: configuration)
            while let job = self.next() { job(session) }
            session.connection.close()
        }
        thread.name = name
        thread.start()
    }

    /// Whether the last command (or connect) succeeded.
    public var isReachable: Bool { reachable.load(ordering: .relaxed) }

    /// Runs one command. Error replies come back as ``RedisReply/error(_:)``; I/O problems throw.
    public func send(_ arguments: [String]) async throws(RedisError) -> RedisReply {
        try await send(arguments.map { Array($0.utf8) })
    }

    /// Binary-safe form of ``send(_:)-([String])``.
    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisReply {
        let slot = ReplySlot()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = queue.withLock { queue -> Bool in
                guard !queue.stopped else { return false }
                queue.jobs.append { session in
                    slot.store(self.perform(arguments, in: session))
                    continuation.resume()
                }
                return true
            }
            if accepted {
                wake.signal()
            } else {
                slot.store(.failure(.unreachable("client is closed")))
                continuation.resume()
            }
        }
        return try slot.take().get()
    }

    /// Stops the thread after the commands already queued; later commands fail.
    public func close() {
        queue.withLock { $0.stopped = true }
        wake.signal()
    }

    private func next() -> Job? {
        while true {
            wake.wait()
            let (job, stopped) = queue.withLock { queue -> (Job?, Bool) in
                queue.jobs.isEmpty ? (nil, queue.stopped) : (queue.jobs.removeFirst(), false)
            }
            if let job { return job }
            if stopped { return nil }
        }
    }

    private func perform(_ arguments: [[UInt8]], in session: Session) -> Result<RedisReply, RedisError> {
        let reused = session.connection.isConnected
        let result = attempt(arguments, in: session)
        // A connection that sat idle may have been closed by a Redis restart: the command never
        // ran, so one retry on a fresh connection is safe (a timeout is not retried).
        if reused, case .failure(.unreachable(let message)) = result,
            ["closed the connection", "reset by peer", "Broken pipe"].contains(where: message.hasSuffix)
        {
            return attempt(arguments, in: session)
        }
        return result
    }

    private func attempt(_ arguments: [[UInt8]], in session: Session) -> Result<RedisReply, RedisError> {
        let connection = session.connection
        if !connection.isConnected {
            if let retryAt = session.retryAt, ContinuousClock.now < retryAt, let error = session.lastError {
                return .failure(error)
            }
            do {
                try connection.connect()
                session.failures = 0
                session.retryAt = nil
            } catch {
                session.failures += 1
                session.lastError = error
                let backoff = Duration.milliseconds(min(2000, 100 << min(session.failures - 1, 5)))
                session.retryAt = ContinuousClock.now + backoff
                reachable.store(false, ordering: .relaxed)
                return .failure(error)
            }
        }
        do {
            let reply = try connection.command(arguments)
            reachable.store(true, ordering: .relaxed)
            return .success(reply)
        } catch {
            // The next command reconnects at once; only a failed reconnect starts the backoff.
            session.lastError = error
            reachable.store(false, ordering: .relaxed)
            return .failure(error)
        }
    }
}
