import CMicroHTTPD
import Foundation
import Logging
import Synchronization

// libmicrohttpd calls these from its worker threads. They are plain nonisolated functions in a
// library target on purpose: a closure in main.swift would be inferred @MainActor and trap.

/// Called by libmicrohttpd once per request with the raw target, before it parses the query:
/// creates the request's context (which becomes `*con_cls`) and takes the query from here.
///
/// libmicrohttpd 0.9.75 stores every query parameter as a record in the connection's memory
/// pool (`--connection-memory`, 16 KiB): a few hundred parameters exhaust it, and it then closes
/// the connection without an answer because the error response no longer fits either. It
/// finds the `?` before calling this and parses what follows after, so the query is copied
/// here and cut off in MHD's buffer (a NUL right after the `?`): MHD parses an empty query,
/// ``Request/decodeQuery(_:limit:)`` parses the copy, and too many parameters get a `414`.
func mhdRequestStarted(
    _ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let cls else { return nil }
    return withCore(cls) { core in
        let context = newContext(core)
        if let uri, let mark = strchr(uri, 63) {
            let query = mark + 1
            if query.pointee != 0 {
                context.rawQuery = String(cString: query)[...]
                // The request line lives in MHD's (writable) read buffer; the pointer is const only in the API.
                UnsafeMutablePointer(mutating: query).pointee = 0
            }
        }
        return Unmanaged.passRetained(context).toOpaque()
    }
}

/// Calls `body` with the core behind a callback's `cls`, borrowed: libmicrohttpd holds a
/// reference to it until the daemon stops (see ``Server``). Not retained on purpose: the core is
/// weakly referenced (the departure watch), so each retain and release of it would take the
/// runtime's slow path, four times per request.
private func withCore<Result>(_ cls: UnsafeMutableRawPointer, _ body: (ServerCore) -> Result) -> Result {
    Unmanaged<ServerCore>.fromOpaque(cls)._withUnsafeGuaranteedRef(body)
}

/// A request's context (from the pool), counted in flight until the completed callback.
private func newContext(_ core: ServerCore) -> RequestContext {
    core.inFlight.add(1, ordering: .relaxed)
    return core.contexts.take(startNanos: requestStartNanos(core))
}

/// When the request started, for the access log and the duration metrics; 0 (no clock read)
/// when neither is on.
private func requestStartNanos(_ core: ServerCore) -> UInt64 {
    core.logger.accessLog || core.metrics != nil ? MonotonicClock.nanos() : 0
}

/// Looked up on every request (see ``CStringConstant``).
private let contentLengthName = CStringConstant("Content-Length")

/// The access handler: called for the headers, once per body chunk, then with no data.
/// Responses are queued only from the second call on, which keeps HTTP/1.1 keep-alive working
/// in libmicrohttpd 0.9.75 (queueing on the first call makes it answer `Connection: close`).
///
/// The phases, each a function below: ``startRequest`` (the first call), ``receiveBody`` (each
/// chunk), then on the last call ``answerFromStore`` or ``route``; a deferred handler's answer
/// comes back through ``RequestContext/takeReadyResponse()`` once the connection resumes.
/// Every refusal goes through ``answer(_:to:request:closing:on:core:)``.
func mhdAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
    return withCore(cls) { core in
        // mhdRequestStarted normally made it.
        let stored = conCls.pointee ?? Unmanaged.passRetained(newContext(core)).toOpaque()
        conCls.pointee = stored
        // Borrowed too: `*con_cls` holds a reference until the completed callback.
        return Unmanaged<RequestContext>.fromOpaque(stored)._withUnsafeGuaranteedRef { context in
            if !context.started {
                startRequest(context, method: method, url: url, version: version, on: connection, core: core)
                return .YES
            }
            if let ready = context.takeReadyResponse() {
                queue(ready, for: context, on: connection, core: core)
                return .YES
            }
            if uploadDataSize.pointee > 0 {
                let size = uploadDataSize.pointee
                uploadDataSize.pointee = 0
                return receiveBody(context, data: uploadData, size: size, core: core)
            }
            // The last call: the request is complete.
            if context.answered { return .YES }
            if context.tooLarge {
                answer(
                    .payloadTooLarge(limit: core.options.maxBodySize), to: context, closing: true,
                    on: connection, core: core)
                return .YES
            }
            if !answerFromStore(context, on: connection, core: core) {
                route(context, version: version, on: connection, core: core)
            }
            return .YES
        }
    }
}

/// The first call, headers in: what the later calls need from the request line, the stored
/// response that will answer it if any, its request id, and a refusal of a declared body over
/// the limit before it is read (libmicrohttpd then closes instead of reading it).
private func startRequest(
    _ context: RequestContext, method: UnsafePointer<CChar>?, url: UnsafePointer<CChar>?,
    version: UnsafePointer<CChar>?, on connection: OpaquePointer, core: ServerCore
) {
    context.started = true
    if let method { setMethod(method, of: context) }
    context.rawPath = url
    context.http11 = version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
    // A target with stored responses: one pass over the fields finds the answer and the id.
    let match = url.flatMap { url in
        core.storedResponses?.match(
            isGETOrHEAD: context.isGETOrHEAD, path: url, query: context.rawQuery, http11: context.http11,
            connection: connection)
    }
    context.storedAnswer = match?.entry
    // The pass's `X-Request-Id` (nil when the request has none); a lookup when no pass ran.
    assignRequestID(
        context,
        sent: match.map(\.sentRequestID)
            ?? MHD_lookup_connection_value(connection, .HEADER_KIND, RequestID.cHeaderName.pointer),
        core: core)
    if match?.hasBodyFraming ?? true,
        let length = MHD_lookup_connection_value(connection, .HEADER_KIND, contentLengthName.pointer),
        let declared = Int(String(cString: length)), declared > core.options.maxBodySize
    {
        context.tooLarge = true
        answer(
            .payloadTooLarge(limit: core.options.maxBodySize), to: context, closing: true, on: connection,
            core: core)
    }
}

/// The method as a string, the common ones without decoding the C string (every request has
/// one), and whether a stored response may answer it.
private func setMethod(_ method: UnsafePointer<CChar>, of context: RequestContext) {
    if strcmp(method, "GET") == 0 {
        context.method = "GET"
        context.isGETOrHEAD = true
    } else if strcmp(method, "POST") == 0 {
        context.method = "POST"
    } else if strcmp(method, "HEAD") == 0 {
        context.method = "HEAD"
        context.isGETOrHEAD = true
    } else {
        context.method = String(cString: method)
    }
}

/// One chunk of the body (`size` bytes, already marked consumed), kept up to the size limit.
/// `.NO` closes the connection.
private func receiveBody(
    _ context: RequestContext, data: UnsafePointer<CChar>?, size: Int, core: ServerCore
) -> MHD_Result {
    guard !context.answered, let data else { return .YES }
    if context.tooLarge {
        // libmicrohttpd cannot queue a response mid-body (e.g. chunked uploads), so the
        // excess is discarded and the 413 goes out at the end; past a bound, just close.
        context.discarded += size
        return context.discarded > max(4 * core.options.maxBodySize, 4 << 20) ? .NO : .YES
    }
    if context.body.count + size > core.options.maxBodySize {
        context.tooLarge = true
        context.discarded = context.body.count + size
        context.body = []
        return .YES
    }
    data.withMemoryRebound(to: UInt8.self, capacity: size) {
        context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
    }
    return .YES
}

/// Sends the stored response the first call found, if it is still current now that the answer
/// is due (a reload may have come in between); false when the request is to be routed.
private func answerFromStore(_ context: RequestContext, on connection: OpaquePointer, core: ServerCore)
    -> Bool
{
    // Taken, not copied: one retain and release less.
    guard let entry = context.storedAnswer.take() else { return false }
    guard entry.condition.isCurrent else { return false }
    // A guarded route's answer: only for a request the gate admits now (nil without a gate).
    if let access = entry.access, let gate = core.router.gate, !gate.admitsEveryone(to: access) {
        var request: Request
        do {
            request = try makeRequest(context, connection: connection, core: core)
        } catch {
            return false  // routed: the router answers the bad request
        }
        if var refusal = gate.admit(&request, to: access) {
            refusal.routeIndex = entry.routeIndex
            queue(refusal, for: context, on: connection, core: core)
            return true
        }
    }
    core.metrics?.recordStoredResponse()
    if core.closing.load(ordering: .acquiring) {
        // Shutting down: the general path, which adds `Connection: close`.
        queue(entry.response, for: context, on: connection, core: core)
    } else if queuePooled(entry.prepared, status: entry.status, for: context, on: connection, core: core) {
        answered(
            context, status: entry.status, routeIndex: entry.routeIndex, bodyBytes: entry.bodyBytes,
            on: connection, core: core)
    }
    return true
}

/// The request value made, checked and handed to the router; its response queued (and stored
/// when reusable), or its deferred work started with the connection suspended.
private func route(
    _ context: RequestContext, version: UnsafePointer<CChar>?, on connection: OpaquePointer, core: ServerCore
) {
    let request: Request
    do {
        request = try makeRequest(context, connection: connection, core: core)
    } catch {
        // The raw path still tells the app which error format to use (e.g. JSON under /api/).
        answer(error, to: context, on: connection, core: core)
        return
    }
    context.body = []
    if let problem = framingProblem(request.headers, version: version) {
        // Ambiguous framing is how requests get smuggled past proxies: refuse and close.
        answer(
            .badRequest(problem, code: "bad_framing"), to: context, request: request, closing: true,
            on: connection, core: core)
        return
    }

    // A refusal below answers a bare request with these headers: the router has the request.
    let headers = request.headers
    switch core.router.route(consume request) {
    case .response(let response):
        if let stream = response.stream, !core.reserveStream(stream) {
            // Streams are bounded apart from pending requests: they stay open for good.
            // Never queued, so libmicrohttpd will not free it: close it here (its owner hears).
            stream.closed(reason: .limit)
            core.metrics?.recordStreamClosed(.limit)
            let busy = HTTPError.unavailable(
                retryAfter: core.options.retryAfterSeconds, message: "Too many open streams.")
            answer(
                busy, to: context, request: bareRequest(context, headers: headers), on: connection, core: core
            )
            return
        }
        queue(response, for: context, on: connection, core: core)
        if response.isReusable, let stored = core.storedResponses {
            stored.remember(
                response, method: context.method, path: context.path, query: context.rawQuery,
                headers: headers, access: core.router.guardedAccess(ofRouteAt: response.routeIndex))
        }
    case .deferred(let work):
        guard core.reservePending(context) else {
            let busy = HTTPError.unavailable(retryAfter: core.options.retryAfterSeconds)
            answer(
                busy, to: context, request: bareRequest(context, headers: headers), on: connection, core: core
            )
            return
        }
        context.suspend(connection)
        MHD_suspend_connection(connection)
        let method = context.method
        let path = context.path
        let rawQuery = context.rawQuery
        Task {
            let response = await work()
            // A deferred answer (e.g. a thumbnail made on first request) is stored like a
            // prepared one, so its repeats are answered before routing too.
            if response.isReusable, let stored = core.storedResponses {
                stored.remember(
                    response, method: method, path: path, query: rawQuery, headers: headers,
                    access: core.router.guardedAccess(ofRouteAt: response.routeIndex))
            }
            core.finish(context, with: response)
        }
    }
}

/// Answers the request with `error` through the router's error renderer, which picks the format
/// from the request (e.g. JSON under /api/): `request` when there is one, else a bare request
/// with the method and path. `closing` adds `Connection: close` (libmicrohttpd then closes).
private func answer(
    _ error: HTTPError, to context: RequestContext, request: Request? = nil, closing: Bool = false,
    on connection: OpaquePointer, core: ServerCore
) {
    var response = core.router.response(for: error, request: request ?? bareRequest(context))
    if closing { response.headers.set("Connection", "close") }
    queue(response, for: context, on: connection, core: core)
}

/// What is known of a request that could not be (or was not) made into a ``Request``.
private func bareRequest(_ context: RequestContext, headers: HTTPHeaders = [:]) -> Request {
    Request(method: context.method, path: context.path, headers: headers)
}

/// The request value for the router, from what libmicrohttpd parsed and the context collected.
private func makeRequest(
    _ context: RequestContext, connection: OpaquePointer, core: ServerCore
) throws(HTTPError) -> Request {
    var request = try Request(
        method: context.method, path: Request.decodePath(context.path),
        headers: readHeaders(connection), body: context.body)
    request.peer = prh_client_address(connection).map(PeerAddress.init) ?? .unknown
    // The raw query stays in the context: a reusable response is stored under it.
    request.query = try Request.decodeQuery(context.rawQuery, limit: core.options.maxQueryParameters)
    return request
}

/// RFC 9112 checks libmicrohttpd 0.9.75 leaves to the application: HTTP/1.1 needs `Host`, and
/// a request may not carry both `Content-Length` and `Transfer-Encoding`, nor disagreeing
/// `Content-Length` values.
private func framingProblem(_ headers: HTTPHeaders, version: UnsafePointer<CChar>?) -> String? {
    var hasHost = false
    var hasTransferEncoding = false
    var contentLength: String?
    for field in headers {
        if field.name.caseInsensitiveEquals("Host") {
            hasHost = true
        } else if field.name.caseInsensitiveEquals("Transfer-Encoding") {
            hasTransferEncoding = true
        } else if field.name.caseInsensitiveEquals("Content-Length") {
            if let previous = contentLength, previous != field.value {
                return "Conflicting Content-Length headers."
            }
            contentLength = field.value
        }
    }
    if hasTransferEncoding, contentLength != nil {
        return "Content-Length and Transfer-Encoding must not both be sent."
    }
    if !hasHost, let version, strcmp(version, "HTTP/1.1") == 0 {
        return "HTTP/1.1 requests must carry a Host header."
    }
    return nil
}

/// The client's `X-Request-Id` (`sent`) when it is acceptable, else a new one; a refused value
/// is logged.
private func assignRequestID(_ context: RequestContext, sent: UnsafePointer<CChar>?, core: ServerCore) {
    guard let sent else {
        context.identity = RequestID.generate()
        return
    }
    if let problem = RequestID.problem(with: sent) {
        context.identity = RequestID.generate()
        let shown = Logger.printable(String(String(cString: sent).prefix(80)))
        core.logger.warning(
            "ignored X-Request-Id '\(shown)' (\(problem)); using a new id", requestID: context.requestID)
    } else {
        context.identity = .sent(String(cString: sent))
    }
}

private func readHeaders(_ connection: OpaquePointer) -> HTTPHeaders {
    var fields: [(name: String, value: String)] = []
    // Browsers send 8 to 15 fields: one allocation instead of growing four times.
    fields.reserveCapacity(16)
    withUnsafeMutablePointer(to: &fields) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, mhdCollectPair, pointer)
    }
    return HTTPHeaders(fields)
}

private func mhdCollectPair(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?,
    _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let fields = cls.assumingMemoryBound(to: [(name: String, value: String)].self)
    fields.pointee.append(
        (name: CommonHeaderNames.string(key), value: value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Ends the per-request context once libmicrohttpd is done with the request: its pooled
/// response goes back, and the context to the pool.
func mhdRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let stored = conCls.pointee else { return }
    conCls.pointee = nil
    withCore(cls) { core in
        // The reference `*con_cls` held, now ours.
        let context = Unmanaged<RequestContext>.fromOpaque(stored).takeRetainedValue()
        // libmicrohttpd is done sending: the pooled response may serve another request now.
        if let lease = context.lease {
            context.lease = nil
            lease.owner.giveBack(lease)
        }
        // Handed over (not copied), so the pool can tell whether anything else still holds it.
        core.contexts.giveBack(consume context)
        core.inFlight.subtract(1, ordering: .relaxed)
    }
}

/// Leaves the path and query bytes as sent, so ``PercentDecoding`` decodes them exactly once.
func mhdIdentityUnescape(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ text: UnsafeMutablePointer<CChar>?
) -> Int {
    guard let text else { return 0 }
    return strlen(text)
}

/// libmicrohttpd's URI log callback type, which its header declares inline and Swift does not name.
typealias MHDURICallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) ->
    UnsafeMutableRawPointer?

/// libmicrohttpd's unescape callback type, which its header declares inline and Swift does not name.
typealias MHDUnescapeCallback =
    @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int

/// libmicrohttpd's log messages, formatted by the C shim, handed to the server's logger.
func mhdLogSink(_ cls: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {
    guard let cls, let message else { return }
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().libraryMessage(String(cString: message))
}
