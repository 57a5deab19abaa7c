import Foundation

/// Carries one command's result from the connection's thread to the awaiting task under a
/// lock, so the handoff is ordered for ThreadSanitizer too (it reported the reply, built on the
/// connection thread, as racing with its reader when it travelled in the continuation alone).
final class ReplySlot: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<RedisReply, RedisError>?

    func store(_ value: Result<RedisReply, RedisError>) {
        lock.withLock { result = value }
    }

    func take() -> Result<RedisReply, RedisError> {
        lock.withLock { result } ?? .failure(.unreachable("no reply"))
    }
}
