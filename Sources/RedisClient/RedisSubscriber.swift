import Foundation
import Synchronization

/// A dedicated subscriber connection on a thread of its own: `SUBSCRIBE channel`, then every
/// message is handed to `onMessage` on that thread.
///
/// The thread polls the socket and PINGs a quiet connection; a PING unanswered within the
/// command timeout, a read error or a closed socket drops the connection, which is re-made with
/// backoff (100 ms doubling to 2 s). `onConnected` runs after every (re)subscribe: pub/sub
/// drops messages while disconnected, so the owner re-reads its state there.
public final class RedisSubscriber: Sendable {
    private let configuration: RedisConfiguration
    private let channel: String
    private let onMessage: @Sendable ([UInt8]) -> Void
    private let onConnected: @Sendable () -> Void
    private let onDisconnected: @Sendable (RedisError) -> Void
    private let stopped = Atomic<Bool>(false)
    private let subscribed = Atomic<Bool>(false)
    private let pingInterval: Duration = .milliseconds(500)

    /// Starts subscribing at once on a new thread.
    public init(
        configuration: RedisConfiguration, channel: String, onMessage: @escaping @Sendable ([UInt8]) -> Void,
        onConnected: @escaping @Sendable () -> Void, onDisconnected: @escaping @Sendable (RedisError) -> Void
    ) {
        self.configuration = configuration
        self.channel = channel
        self.onMessage = onMessage
        self.onConnected = onConnected
        self.onDisconnected = onDisconnected
        let thread = Thread { [self] in self.run() }
        thread.name = "redis-subscriber"
        thread.start()
    }

    /// Whether the subscription is live now.
    public var isSubscribed: Bool { subscribed.load(ordering: .acquiring) }

    /// Ends the thread within a quarter second.
    public func close() {
        stopped.store(true, ordering: .releasing)
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    private func run() {
        let connection = RedisConnection(configuration: configuration)
        var failures = 0
        while !isStopped {
            do {
                try connection.connect()
                try connection.append(["SUBSCRIBE", channel])
                try waitForSubscription(connection)
                failures = 0
                subscribed.store(true, ordering: .releasing)
                onConnected()
                try listen(connection)
            } catch {
                connection.close()
                if subscribed.exchange(false, ordering: .acquiringAndReleasing) || failures == 0 {
                    onDisconnected(error)
                }
                failures += 1
                pause(.milliseconds(min(2000, 100 << min(failures - 1, 5))))
            }
        }
        connection.close()
        subscribed.store(false, ordering: .releasing)
    }

    private func waitForSubscription(_ connection: RedisConnection) throws(RedisError) {
        let deadline = ContinuousClock.now + configuration.commandTimeout
        while ContinuousClock.now < deadline {
            if let reply = try read(connection, waitingUpTo: .milliseconds(100)) {
                guard case .array(let parts) = reply, parts.first?.text == "subscribe" else {
                    throw .unexpectedReply("SUBSCRIBE answered \(reply)")
                }
                return
            }
        }
        throw .unreachable("SUBSCRIBE unanswered within the command timeout")
    }

    private func listen(_ connection: RedisConnection) throws(RedisError) {
        var lastTraffic = ContinuousClock.now
        var pingSent: ContinuousClock.Instant?
        while !isStopped {
            if let reply = try read(connection, waitingUpTo: .milliseconds(250)) {
                lastTraffic = .now
                pingSent = nil
                if case .array(let parts) = reply, parts.count == 3, parts[0].text == "message",
                    case .string(let payload) = parts[2]
                {
                    onMessage(payload)
                }
                continue
            }
            let now = ContinuousClock.now
            if let pingSent {
                if now - pingSent > configuration.commandTimeout {
                    throw .unreachable("PING unanswered within the command timeout")
                }
            } else if now - lastTraffic > pingInterval {
                try connection.append(["PING"])
                pingSent = now
            }
        }
    }

    /// One reply, reading from the socket when none is buffered; nil if none within `wait`.
    private func read(_ connection: RedisConnection, waitingUpTo wait: Duration) throws(RedisError)
        -> RedisReply?
    {
        if let reply = try connection.bufferedReply() { return reply }
        var descriptor = pollfd(fd: connection.descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(
            wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else {
            if ready < 0, errno != EINTR { throw .unreachable("poll failed: errno \(errno)") }
            return nil
        }
        try connection.readAvailable()
        return try connection.bufferedReply()
    }

    private func pause(_ duration: Duration) {
        let end = ContinuousClock.now + duration
        while !isStopped, ContinuousClock.now < end { usleep(20_000) }
    }
}
