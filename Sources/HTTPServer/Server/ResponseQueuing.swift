import CMicroHTTPD
import Logging
import Synchronization

// Handing answers to libmicrohttpd, for the request phases in Callbacks.swift: one-off, pooled
// and streaming responses, the per-request headers, then the metrics and the access line.

/// Hands a response to libmicrohttpd, with the per-request headers (`X-Request-Id`, HSTS,
/// `Connection: close` while shutting down), then records metrics and the access line.
func queue(
    _ response: Response, for context: RequestContext, on connection: OpaquePointer, core: ServerCore
) {
    let closing = core.closing.load(ordering: .acquiring)
    if let stream = response.stream {
        guard queueStream(stream, response: response, context: context, on: connection, core: core)
        else {
            core.logger.error("libmicrohttpd could not queue a stream", requestID: context.requestID)
            return
        }
    } else if let prepared = response.preparedHandle, !closing {
        guard queuePooled(prepared, status: response.status, for: context, on: connection, core: core) else {
            return
        }
    } else {
        guard let mhdResponse = makeResponse(response, context: context, core: core) else {
            core.logger.error("libmicrohttpd could not allocate a response", requestID: context.requestID)
            return
        }
        addPerRequestHeaders(to: mhdResponse, context: context, core: core)
        if closing { _ = MHD_add_response_header(mhdResponse, "Connection", "close") }
        let queued = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        guard queued == .YES else { return }
    }
    answered(
        context, status: response.status, routeIndex: response.routeIndex, bodyBytes: response.body.count,
        on: connection, core: core)
}

/// Queues a pooled libmicrohttpd response over the prepared bytes, with this request's id; it
/// is given back when the request completes. False when it could not be queued.
func queuePooled(
    _ prepared: PreparedResponse, status: Int, for context: RequestContext, on connection: OpaquePointer,
    core: ServerCore
) -> Bool {
    guard let lease = prepared.lease(serverHeaders: core.serverHeaders, requestID: context.identity) else {
        core.logger.error("libmicrohttpd could not allocate a response", requestID: context.requestID)
        return false
    }
    guard MHD_queue_response(connection, UInt32(status), lease.handle) == .YES else {
        prepared.giveBack(lease)
        return false
    }
    context.lease = lease
    return true
}

/// A response is queued: the request is answered; its metrics and access line are recorded.
func answered(
    _ context: RequestContext, status: Int, routeIndex: Int, bodyBytes: Int, on connection: OpaquePointer,
    core: ServerCore
) {
    context.answered = true
    guard core.logger.accessLog || core.metrics != nil else { return }
    let nanos = MonotonicClock.nanos() &- context.startNanos
    core.metrics?.record(routeIndex: routeIndex, status: status, bodyBytes: bodyBytes, nanoseconds: nanos)
    if core.logger.accessLog {
        core.logger.access(
            method: context.method, path: context.path, status: status, bytes: bodyBytes,
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
