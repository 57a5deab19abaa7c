import CMicroHTTPD
import Synchronization

/// A response whose body and headers were checked and copied once, for bodies the app caches
/// and serves many times.
///
/// A libmicrohttpd response is immutable once queued (connections read its header list while
/// sending), so per-request headers such as `X-Request-Id` cannot be added to one shared
/// object. Instead each prepared response keeps a small pool of libmicrohttpd responses over
/// the same body bytes: a request borrows one (``lease(serverHeaders:requestID:)``), puts its own
/// `X-Request-Id` on it in place of the previous borrower's (the server's constant headers are
/// added once per pooled response), and gives it back when libmicrohttpd reports the request
/// complete. Nothing is copied or allocated per request (see ``RequestIDSlot``).
final class PreparedResponse: @unchecked Sendable {
    private struct Spare: @unchecked Sendable {
        let handle: OpaquePointer
        /// The server headers on `handle`, or nil when it has none yet.
        var serverHeaders: ServerHeaders?
        /// The `X-Request-Id` value on `handle`, or nil when it has none yet.
        var requestID: RequestIDSlot?
    }

    private let headers: HTTPHeaders
    private let bytes: ResponseBytes
    private let spares = Mutex<[Spare]>([])
    /// Responses kept for reuse; more concurrent borrowers make (and later free) extra ones.
    private static let poolLimit = 64

    init?(_ response: Response) {
        headers = response.headers
        bytes = ResponseBytes(response.body)
        // The first response checks the headers and becomes the first spare.
        guard let first = makeHandle() else { return nil }
        spares.withLock { $0.append(Spare(handle: first)) }
    }

    /// A bodiless response (a `304`) with `headers`, over `other`'s bytes: libmicrohttpd sends
    /// no body for such a status but takes its `Content-Length` from the buffer, so it is the
    /// length of `other`'s body rather than 0.
    init?(headers: HTTPHeaders, lengthOf other: PreparedResponse) {
        self.headers = headers
        bytes = other.bytes
        guard let first = makeHandle() else { return nil }
        spares.withLock { $0.append(Spare(handle: first)) }
    }

    /// A new libmicrohttpd response over the shared bytes with the prepared headers, or nil if
    /// libmicrohttpd refuses a header or is out of memory.
    func makeHandle() -> OpaquePointer? {
        let retained = Unmanaged.passRetained(bytes).toOpaque()
        guard
            let created = MHD_create_response_from_buffer_with_free_callback_cls(
                bytes.count, bytes.base, mhdReleaseBytes, retained)
        else {
            Unmanaged<ResponseBytes>.fromOpaque(retained).release()
            return nil
        }
        for field in headers where MHD_add_response_header(created, field.name, field.value) == .NO {
            MHD_destroy_response(created)
            return nil
        }
        return created
    }

    /// A response for one request carrying the server's headers and `requestID` on top of the
    /// prepared ones; give it back with ``giveBack(_:)`` once libmicrohttpd completed the request.
    func lease(serverHeaders: ServerHeaders, requestID: RequestIdentity) -> ResponseLease? {
        var spare: Spare
        if let pooled = spares.withLock({ $0.popLast() }) {
            spare = pooled
        } else {
            guard let handle = makeHandle() else { return nil }
            spare = Spare(handle: handle)
        }
        if spare.serverHeaders !== serverHeaders {
            // Only when one body is served by two servers with different options (tests).
            for field in spare.serverHeaders?.fields ?? [] {
                _ = MHD_del_response_header(spare.handle, field.name, field.value)
            }
            for field in serverHeaders.fields {
                _ = MHD_add_response_header(spare.handle, field.name, field.value)
            }
            spare.serverHeaders = serverHeaders
        }
        if spare.requestID?.overwrite(with: requestID) != true {
            // The first borrower, or an id of another length (a client's own): a new header.
            spare.requestID = RequestIDSlot(replacing: spare.requestID, with: requestID, on: spare.handle)
        }
        return ResponseLease(
            owner: self, handle: spare.handle, serverHeaders: serverHeaders, requestID: spare.requestID)
    }

    /// Returns a leased response to the pool (or frees it when the pool is full).
    func giveBack(_ lease: ResponseLease) {
        let spare = Spare(
            handle: lease.handle, serverHeaders: lease.serverHeaders, requestID: lease.requestID)
        let kept = spares.withLock { spares -> Bool in
            guard spares.count < PreparedResponse.poolLimit else { return false }
            spares.append(spare)
            return true
        }
        if !kept { MHD_destroy_response(lease.handle) }
    }

    deinit {
        for spare in spares.withLock({ $0 }) {
            MHD_destroy_response(spare.handle)
        }
    }
}
