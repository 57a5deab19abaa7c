import Synchronization

/// Contexts of completed requests, kept for the next ones: a cached GET then allocates no
/// context (an allocation, its zeroing, a lock and a free per request otherwise, about a tenth
/// of what the server adds to libmicrohttpd's own work).
///
/// A context comes back only when the completed callback holds its last reference: one a
/// deferred handler's task still holds (it may yet call ``RequestContext/complete(with:)``) is
/// left to be freed, so a reused context can never be resumed by its previous request's work.
final class RequestContextPool: Sendable {
    private let spares = Mutex<[RequestContext]>([])
    /// Enough for every connection of a busy server; past it, contexts are freed.
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// A context in its initial state, reused when one is spare.
    func take(startNanos: UInt64) -> RequestContext {
        if let spare = spares.withLock({ $0.popLast() }) {
            spare.startNanos = startNanos
            return spare
        }
        return RequestContext(startNanos: startNanos)
    }

    /// Keeps `context` for a later request when nothing else holds it and the pool has room.
    func giveBack(_ context: consuming RequestContext) {
        guard isKnownUniquelyReferenced(&context) else { return }
        // Reset now, not when taken: its body and stored answer are not kept alive meanwhile.
        context.reset()
        let spare = consume context
        spares.withLock { spares in
            if spares.count < limit { spares.append(spare) }
        }
    }
}
