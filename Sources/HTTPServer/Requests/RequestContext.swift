import CMicroHTTPD
import Foundation
import Synchronization

/// Per-request state that lives in libmicrohttpd's `con_cls` slot from the first handler call
/// until the request-completed callback releases it.
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

    let startNanos: UInt64
    var body: [UInt8] = []
    var tooLarge = false
    var discarded = 0
    var answered = false
    var method = ""
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
    private let phase = Mutex(Phase.reading)

    init(startNanos: UInt64) {
        self.startNanos = startNanos
    }

    /// Records the suspended connection so a later `complete` can resume it.
    func suspend(_ connection: OpaquePointer) {
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
        phase.withLock { phase in
            guard case .ready(let response) = phase else { return nil }
            phase = .answered
            return response
        }
    }
}
