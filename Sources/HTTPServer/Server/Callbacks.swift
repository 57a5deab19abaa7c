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
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = RequestContext(startNanos: requestStartNanos(core))
    core.inFlight.add(1, ordering: .relaxed)
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
func mhdAccessHandler(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
    _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?, _ uploadData: UnsafePointer<CChar>?,
    _ uploadDataSize: UnsafeMutablePointer<Int>?, _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    if conCls.pointee == nil {
        // mhdRequestStarted normally made it.
        let context = RequestContext(startNanos: requestStartNanos(core))
        conCls.pointee = Unmanaged.passRetained(context).toOpaque()
        core.inFlight.add(1, ordering: .relaxed)
    }
    guard let stored = conCls.pointee else { return .NO }
    let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
    if !context.started {
        context.started = true
        context.method = method.map(methodName) ?? ""
        context.rawPath = url
        context.http11 = version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
        // A target with stored responses: one pass over the fields finds the answer and the id.
        let match = url.flatMap { url in
            core.storedResponses?.match(
                method: context.method, path: url, query: context.rawQuery, http11: context.http11,
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
            // Refusing before the body is read: libmicrohttpd then closes instead of reading it.
            context.tooLarge = true
            rejectTooLarge(context, connection: connection, core: core)
        }
        return .YES
    }

    if let ready = context.takeReadyResponse() {
        queue(ready, for: context, on: connection, core: core)
        return .YES
    }
    let size = uploadDataSize.pointee
    if size > 0 {
        uploadDataSize.pointee = 0
        guard !context.answered, let uploadData else { return .YES }
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
        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
            context.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
        }
        return .YES
    }
    if context.answered { return .YES }
    if context.tooLarge {
        rejectTooLarge(context, connection: connection, core: core)
        return .YES
    }

    if let entry = context.storedAnswer {
        context.storedAnswer = nil
        // Still current now that the answer is due (a reload may have come in between).
        if entry.condition.isCurrent {
            core.metrics?.recordStoredResponse()
            queue(entry.response, for: context, on: connection, core: core)
            return .YES
        }
    }

    let request: Request
    do {
        request = try makeRequest(context, connection: connection, core: core)
    } catch {
        // The raw path still tells the app which error format to use (e.g. JSON under /api/).
        let bare = Request(method: context.method, path: context.path)
        queue(core.router.response(for: error, request: bare), for: context, on: connection, core: core)
        return .YES
    }
    context.body = []
    if let problem = framingProblem(request.headers, version: version) {
        // Ambiguous framing is how requests get smuggled past proxies: refuse and close.
        var response = core.router.response(
            for: HTTPError.badRequest(problem, code: "bad_framing"), request: request)
        response.headers.set("Connection", "close")
        queue(response, for: context, on: connection, core: core)
        return .YES
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
            let bare = Request(method: context.method, path: context.path, headers: headers)
            queue(core.router.response(for: busy, request: bare), for: context, on: connection, core: core)
            return .YES
        }
        queue(response, for: context, on: connection, core: core)
        if response.isReusable, let stored = core.storedResponses {
            stored.remember(
                response, method: context.method, path: context.path, query: context.rawQuery,
                headers: headers)
        }
    case .deferred(let work):
        guard core.reservePending(context) else {
            let busy = HTTPError.unavailable(retryAfter: core.options.retryAfterSeconds)
            let bare = Request(method: context.method, path: context.path, headers: headers)
            queue(core.router.response(for: busy, request: bare), for: context, on: connection, core: core)
            return .YES
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
                stored.remember(response, method: method, path: path, query: rawQuery, headers: headers)
            }
            core.finish(context, with: response)
        }
    }
    return .YES
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

/// The method as a string: the common ones without decoding the C string (every request has one).
private func methodName(_ method: UnsafePointer<CChar>) -> String {
    if strcmp(method, "GET") == 0 { return "GET" }
    if strcmp(method, "POST") == 0 { return "POST" }
    if strcmp(method, "HEAD") == 0 { return "HEAD" }
    return String(cString: method)
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

private func rejectTooLarge(_ context: RequestContext, connection: OpaquePointer, core: ServerCore) {
    let request = Request(method: context.method, path: context.path)
    var response = core.router.response(
        for: HTTPError.payloadTooLarge(limit: core.options.maxBodySize), request: request)
    response.headers.set("Connection", "close")
    queue(response, for: context, on: connection, core: core)
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

/// Hands a response to libmicrohttpd, with the per-request headers (`X-Request-Id`, HSTS,
/// `Connection: close` while shutting down), then records metrics and the access line.
private func queue(
    _ response: Response, for context: RequestContext, on connection: OpaquePointer, core: ServerCore
) {
    let closing = core.closing.load(ordering: .acquiring)
    let queued: MHD_Result
    if let stream = response.stream {
        guard queueStream(stream, response: response, context: context, on: connection, core: core)
        else {
            core.logger.error("libmicrohttpd could not queue a stream", requestID: context.requestID)
            return
        }
        queued = .YES
    } else if let prepared = response.preparedHandle, !closing {
        // A pooled response over the cached bytes; given back when the request completes.
        guard let lease = prepared.lease(serverHeaders: core.serverHeaders, requestID: context.identity)
        else {
            core.logger.error("libmicrohttpd could not allocate a response", requestID: context.requestID)
            return
        }
        queued = MHD_queue_response(connection, UInt32(response.status), lease.handle)
        if queued == .YES {
            context.lease = lease
        } else {
            prepared.giveBack(lease)
        }
    } else {
        guard let mhdResponse = makeResponse(response, context: context, core: core) else {
            core.logger.error("libmicrohttpd could not allocate a response", requestID: context.requestID)
            return
        }
        addPerRequestHeaders(to: mhdResponse, context: context, core: core)
        if closing { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
        queued = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
    }
    guard queued == .YES else { return }
    context.answered = true
    guard core.logger.accessLog || core.metrics != nil else { return }
    let nanos = MonotonicClock.nanos() &- context.startNanos
    core.metrics?.record(
        routeIndex: response.routeIndex, status: response.status, bodyBytes: response.body.count,
        nanoseconds: nanos)
    if core.logger.accessLog {
        core.logger.access(
            method: context.method, path: context.path, status: response.status, bytes: response.body.count,
            seconds: Double(nanos) / 1e9, peer: prh_client_address(connection).map(PeerAddress.init)?.text,
            requestID: context.requestID)
    }
}

/// Queues a streaming response: its own callback response, which libmicrohttpd frees (and the
/// stream learns it is closed) when the connection is done.
private func queueStream(
    _ stream: ResponseStream, response: Response, context: RequestContext, on connection: OpaquePointer,
    core: ServerCore
) -> Bool {
    guard let handle = stream.makeHandle() else {
        core.releaseStream(stream, reason: .heartbeatFailed)
        stream.closed(reason: .heartbeatFailed)
        return false
    }
    for field in response.headers where MHD_add_response_header(handle, field.name, field.value) == .NO {
        core.logger.error("dropped invalid response header '\(Logger.printable(field.name))'")
    }
    addPerRequestHeaders(to: handle, context: context, core: core)
    let socket = prh_connection_socket(connection)
    stream.attach(
        connection: connection, socket: socket >= 0 ? socket : nil,
        directWrites: writesDirectly(context: context, core: core)
    ) {
        [weak core, weak stream] reason in
        if let core, let stream { core.releaseStream(stream, reason: reason) }
    }
    let queued = MHD_queue_response(connection, UInt32(response.status), handle)
    // The connection holds its own reference; the free callback runs when it lets go.
    MHD_destroy_response(handle)
    return queued == .YES
}

/// Whether a stream may write its chunks to its socket while suspended (see ``ChunkSocketWrite``):
/// only when libmicrohttpd sends the stream as HTTP/1.1 chunks over plain TCP (it chunks every
/// HTTP/1.1 stream, `Connection: close` or not). Over TLS the bytes must go through
/// libmicrohttpd's TLS session; to HTTP/1.0 clients it sends the body unframed.
private func writesDirectly(context: RequestContext, core: ServerCore) -> Bool {
    core.options.tls == nil && context.http11
}

/// The server's headers (HSTS) and the request's `X-Request-Id`, on a response of its own.
private func addPerRequestHeaders(to handle: OpaquePointer, context: RequestContext, core: ServerCore) {
    for field in core.serverHeaders.fields {
        _ = MHD_add_response_header(handle, field.name, field.value)
    }
    RequestID.add(context.requestID, to: handle)
}

/// A one-off libmicrohttpd response (owned by the caller): over the prepared bytes when there
/// are some, else a copy of the body with the headers checked now.
private func makeResponse(_ response: Response, context: RequestContext, core: ServerCore) -> OpaquePointer? {
    if let prepared = response.preparedHandle { return prepared.makeHandle() }
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return nil }
    for field in response.headers where MHD_add_response_header(created, field.name, field.value) == .NO {
        core.logger.error(
            "dropped invalid response header '\(Logger.printable(field.name))'", requestID: context.requestID)
    }
    return created
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

/// Frees the per-request context once libmicrohttpd is done with the request.
func mhdRequestCompleted(
    _ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
    _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ code: MHD_RequestTerminationCode
) {
    guard let cls, let conCls, let stored = conCls.pointee else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(stored).takeUnretainedValue()
    // libmicrohttpd is done sending: the pooled response may serve another request now.
    if let lease = context.lease {
        context.lease = nil
        lease.owner.giveBack(lease)
    }
    Unmanaged<RequestContext>.fromOpaque(stored).release()
    conCls.pointee = nil
    core.inFlight.subtract(1, ordering: .relaxed)
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
