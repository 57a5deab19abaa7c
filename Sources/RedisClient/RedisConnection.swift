import CHiredis
import Foundation

/// One blocking hiredis connection. Not thread-safe: each instance is created, used and freed
/// on one thread of its own (a ``RedisClient`` or ``RedisSubscriber`` thread), never on Swift's
/// cooperative pool.
final class RedisConnection {
    private let configuration: RedisConfiguration
    private var context: UnsafeMutablePointer<redisContext>?

    init(configuration: RedisConfiguration) {
        self.configuration = configuration
    }

    deinit { close() }

    var isConnected: Bool { context != nil }

    /// The socket, for `poll`; -1 when closed.
    var descriptor: Int32 { context?.pointee.fd ?? -1 }

    /// Connects (bounded by the connect timeout), sets the command timeout, authenticates and
    /// selects the database.
    func connect() throws(RedisError) {
        close()
        let url = configuration.url
        guard
            let fresh = redisConnectWithTimeout(
                url.host, Int32(url.port), Self.timeValue(configuration.connectTimeout))
        else { throw .unreachable("cannot allocate a connection") }
        if fresh.pointee.err != 0 {
            let message = Self.errorText(fresh)
            redisFree(fresh)
            throw .unreachable("\(url): \(message)")
        }
        _ = redisSetTimeout(fresh, Self.timeValue(configuration.commandTimeout))
        _ = redisEnableKeepAlive(fresh)
        context = fresh
        if let password = url.password {
            let arguments = ["AUTH"] + (url.user.map { [$0] } ?? []) + [password]
            if case .error(let message) = try command(arguments.map { Array($0.utf8) }) {
                close()
                throw .server("AUTH failed: \(message)")
            }
        }
        if url.database != 0, case .error(let message) = try command(["SELECT", String(url.database)]) {
            close()
            throw .server("SELECT \(url.database) failed: \(message)")
        }
    }

    func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// Sends one command and waits for its reply (bounded by the command timeout). An I/O error
    /// or timeout closes the connection, which hiredis leaves unusable.
    func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try command(arguments.map { Array($0.utf8) })
    }

    /// Binary-safe form of ``command(_:)-([String])``.
    func command(_ arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        guard let context else { throw .unreachable("not connected") }
        let raw = Self.withArgv(arguments) { count, argv, lengths in
            redisCommandArgv(context, count, argv, lengths)
        }
        guard let raw else { throw brokenConnection() }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return RedisReply(reply)
    }

    /// Queues a command in the output buffer without waiting (the subscriber's PING).
    func append(_ arguments: [String]) throws(RedisError) {
        guard let context else { throw .unreachable("not connected") }
        let status = Self.withArgv(arguments.map { Array($0.utf8) }) { count, argv, lengths in
            redisAppendCommandArgv(context, count, argv, lengths)
        }
        guard status == REDIS_OK else { throw brokenConnection() }
        var done: Int32 = 0
        while done == 0 {
            guard redisBufferWrite(context, &done) == REDIS_OK else { throw brokenConnection() }
        }
    }

    /// Reads what the socket has (call after `poll` said it is readable) into hiredis's buffer.
    func readAvailable() throws(RedisError) {
        guard let context else { throw .unreachable("not connected") }
        guard redisBufferRead(context) == REDIS_OK else { throw brokenConnection() }
    }

    /// The next complete reply already read, if any; never touches the socket.
    func bufferedReply() throws(RedisError) -> RedisReply? {
        guard let context else { throw .unreachable("not connected") }
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &raw) == REDIS_OK else { throw brokenConnection() }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return RedisReply(raw.assumingMemoryBound(to: redisReply.self))
    }

    private func brokenConnection() -> RedisError {
        let message = context.map(Self.errorText) ?? "not connected"
        close()
        return .unreachable("\(configuration.url): \(message.isEmpty ? "connection lost" : message)")
    }

    private static func errorText(_ context: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: context.pointee.errstr) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    private static func timeValue(_ duration: Duration) -> timeval {
        let (seconds, attoseconds) = duration.components
        return timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }

    /// Calls `body` with C copies of `arguments` (argc, argv, argvlen) that live for the call.
    private static func withArgv<Result>(
        _ arguments: [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        let buffers = arguments.map { bytes -> UnsafeMutablePointer<CChar> in
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, bytes.count))
            bytes.withUnsafeBufferPointer { source in
                source.withMemoryRebound(to: CChar.self) { chars in
                    if let base = chars.baseAddress { buffer.initialize(from: base, count: chars.count) }
                }
            }
            return buffer
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        var argv: [UnsafePointer<CChar>?] = buffers.map { UnsafePointer($0) }
        let lengths = arguments.map(\.count)
        return argv.withUnsafeMutableBufferPointer { argvBuffer in
            lengths.withUnsafeBufferPointer { lengthBuffer in
                body(Int32(arguments.count), argvBuffer.baseAddress!, lengthBuffer.baseAddress!)
            }
        }
    }
}
