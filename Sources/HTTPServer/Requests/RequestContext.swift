import CMicroHTTPD
import Foundation
import Synchronization

/// Per-request state that lives in libmicrohttpd's `con_cls` slot from the first handler call
/// until the request-completed callback releases it. Contexts are reused (see
/// ``RequestContextPool``): ``reset()`` puts one back to its initial state.
///
/// Fields other than `phase` are touched only by the MHD thread that owns the connection; the
/// handler calls for one connection never overlap, so they need no lock.
final class RequestContext: @unchecked Sendable {
    /// A suspended MHD connection; only resumed once, under the phase lock's protocol.
    struct Connection: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    enum Phase: Sendable {
        case reading
        case suspended(Connection)
        case ready(Response)
        case answered
    }

    /// When the request started (``MonotonicClock``), or 0 when nothing measures it.
    var startNanos: UInt64
    var body: [UInt8] = []
    var tooLarge = false
    var discarded = 0
    var answered = false
    var method = ""
    /// `GET` or `HEAD`: the methods a stored response may answer (checked once, in C).
    var isGETOrHEAD = false
    /// The path as sent, in libmicrohttpd's buffer: valid until the request completes.
    var rawPath: UnsafePointer<CChar>?
    private var pathText: String?
    /// `rawPath` as text, made on first use: a request answered from the stored responses
    /// never needs it unless the access log is on.
    var path: String {
        if let pathText { return pathText }
        let text = rawPath.map { String(cString: $0) } ?? ""
        pathText = text
        return text
    }
    /// `X-Request-Id` for the response and the log: the client's, or one made up.
    var identity = RequestIdentity.made(0)
    /// ``identity`` as text, for the logs.
    var requestID: String { identity.text }
    /// The stored response the first handler call found for this request (sent by the last).
    var storedAnswer: StoredResponse?
    /// The pooled libmicrohttpd response queued for this request, given back on completion.
    var lease: ResponseLease?
    /// The query as sent (after `?`, undecoded), taken by ``mhdRequestStarted`` before
    /// libmicrohttpd could parse it.
    var rawQuery: Substring = ""
    /// Whether the request is HTTP/1.1 (a stream's response then goes out in chunks).
    var http11 = false
    /// Whether the access handler's first call (headers only) has happened.
    var started = false
    /// Whether ``suspend(_:)`` was called: only then can a response be ready (set on the MHD
    /// thread, so the handler checks it before taking the phase lock on every call).
    private var suspended = false
    private let phase = Mutex(Phase.reading)

    init(startNanos: UInt64) {
        self.startNanos = startNanos
    }

    /// Back to the state of a new context, for the next request (the pool calls this only when
    /// nothing else holds the context); what it referred to (body, stored answer) is let go.
    func reset() {
        startNanos = 0
        body = []
        tooLarge = false
        discarded = 0
        answered = false
        method = ""
        isGETOrHEAD = false
        rawPath = nil
        pathText = nil
        identity = .made(0)
        storedAnswer = nil
        lease = nil
        rawQuery = ""
        http11 = false
        started = false
        if suspended {
            suspended = false
            phase.withLock { $0 = .reading }
        }
    }

    /// Records the suspended connection so a later `complete` can resume it.
    func suspend(_ connection: OpaquePointer) {
        suspended = true
        phase.withLock { $0 = .suspended(Connection(pointer: connection)) }
    }

    /// Stores the response and returns the connection to resume, exactly once: later calls
    /// (a handler finishing after shutdown already answered 503) return nil and change nothing.
    func complete(with response: Response) -> OpaquePointer? {
        phase.withLock { phase in
            guard case .suspended(let connection) = phase else { return nil }
            phase = .ready(response)
            return connection.pointer
        }
    }

    /// The response stored by `complete`, handed out once after the connection resumed.
    func takeReadyResponse() -> Response? {
        guard suspended else { return nil }
        return phase.withLock { phase in
            guard case .ready(let response) = phase else { return nil }
            phase = .answered
            return response
        }
    }
}
