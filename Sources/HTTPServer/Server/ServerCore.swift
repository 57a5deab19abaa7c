import CMicroHTTPD
import Foundation
import Logging
import Synchronization

/// The state libmicrohttpd's C callbacks reach through their `cls` pointer.
final class ServerCore: @unchecked Sendable {
    struct Pending {
        var contexts: [ObjectIdentifier: RequestContext] = [:]
        var shuttingDown = false
    }

    let router: Router
    let logger: Logger
    let options: ServerOptions
    let pending = Mutex(Pending())
    /// Streaming responses queued and not yet freed by libmicrohttpd.
    let streams = Mutex<[ObjectIdentifier: ResponseStream]>([:])
    /// Requests between their first handler call and the completed callback.
    let inFlight = Atomic<Int>(0)
    /// Set once shutdown starts; read on the hot path without taking the pending lock.
    let closing = Atomic<Bool>(false)

    /// Per-request series, when metrics are on.
    let metrics: ServerMetrics?
    /// Headers every response carries, from the options (HSTS).
    let serverHeaders: ServerHeaders
    /// Reusable responses answered without routing; nil when the options turn them off.
    let storedResponses: StoredResponses?
    /// Per-request contexts of completed requests, reused by the next ones.
    let contexts: RequestContextPool
    /// libmicrohttpd's messages before the daemon runs: the reason it refused to start.
    private let earlyMessages = Mutex<[String]>([])
    private let started = Atomic<Bool>(false)
    /// Where the C shim sends libmicrohttpd's messages: back to this core. Lives as long as the
    /// core, which libmicrohttpd keeps alive until the daemon stops.
    let logTarget = UnsafeMutablePointer<prh_log_target>.allocate(capacity: 1)

    init(router: Router, logger: Logger, options: ServerOptions, metrics: ServerMetrics? = nil) {
        self.router = router
        self.logger = logger
        self.options = options
        self.metrics = metrics
        var extra: [(name: String, value: String)] = []
        if options.tls != nil, options.strictTransportSecurity {
            extra.append((name: "Strict-Transport-Security", value: "max-age=31536000"))
        }
        serverHeaders = ServerHeaders(extra)
        storedResponses =
            options.storedResponses > 0 ? StoredResponses(capacity: options.storedResponses) : nil
        contexts = RequestContextPool(limit: options.connectionLimit)
        logTarget.initialize(
            to: prh_log_target(sink: mhdLogSink, context: Unmanaged.passUnretained(self).toOpaque()))
    }

    deinit {
        logTarget.deallocate()
    }

    /// A message from libmicrohttpd: kept while starting, logged as a warning once running.
    func libraryMessage(_ message: String) {
        let trimmed = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return }
        if started.load(ordering: .acquiring) {
            logger.warning("libmicrohttpd: " + trimmed)
        } else {
            earlyMessages.withLock { $0.append(trimmed) }
        }
    }

    /// Messages libmicrohttpd wrote while failing to start, joined, or nil.
    func startupMessages() -> String? {
        let messages = earlyMessages.withLock { $0 }
        return messages.isEmpty ? nil : messages.joined(separator: "; ")
    }

    func markStarted() {
        started.store(true, ordering: .releasing)
    }

    /// Registers a request as pending, or refuses it when the bound is reached or shutdown began.
    func reservePending(_ context: RequestContext) -> Bool {
        pending.withLock { state in
            guard !state.shuttingDown, state.contexts.count < options.maxPendingRequests else { return false }
            state.contexts[ObjectIdentifier(context)] = context
            return true
        }
    }

    /// Registers a stream about to be queued, or refuses it past the limit or once shutting down.
    func reserveStream(_ stream: ResponseStream) -> Bool {
        guard !closing.load(ordering: .acquiring) else { return false }
        return streams.withLock { open in
            guard open.count < options.maxStreams else { return false }
            open[ObjectIdentifier(stream)] = stream
            return true
        }
    }

    /// Forgets a stream libmicrohttpd is done with (or that could not be queued), counting why.
    func releaseStream(_ stream: ResponseStream, reason: StreamCloseReason) {
        streams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(stream)) }
        metrics?.recordStreamClosed(reason)
    }

    /// The open streams, for the ``DepartureWatch``.
    var openStreams: [ResponseStream] { streams.withLock { Array($0.values) } }

    var streamCount: Int { streams.withLock { $0.count } }

    /// Ends every open stream cleanly (shutdown): each sends its last chunk and completes.
    func finishStreams() -> Int {
        let open = streams.withLock { Array($0.values) }
        for stream in open { stream.finish(reason: .shutdown) }
        return open.count
    }

    /// Delivers a handler's response and resumes the connection, at most once per request.
    func finish(_ context: RequestContext, with response: Response) {
        pending.withLock { _ = $0.contexts.removeValue(forKey: ObjectIdentifier(context)) }
        resume(context, with: response)
    }

    /// Hands the response over and resumes the connection, unless it was already answered.
    private func resume(_ context: RequestContext, with response: Response) {
        if let connection = context.complete(with: response) {
            MHD_resume_connection(connection)
        }
    }

    /// Marks shutdown and returns every request still waiting on its handler.
    func beginShutdown() -> Int {
        closing.store(true, ordering: .releasing)
        return pending.withLock { state in
            state.shuttingDown = true
            return state.contexts.count
        }
    }

    var pendingCount: Int {
        pending.withLock { $0.contexts.count }
    }

    /// Answers every still-pending request with `response` (used after the grace period).
    func abandonPending(with response: Response) {
        let contexts = pending.withLock { state in
            defer { state.contexts.removeAll() }
            return Array(state.contexts.values)
        }
        for context in contexts {
            resume(context, with: response)
        }
    }
}
