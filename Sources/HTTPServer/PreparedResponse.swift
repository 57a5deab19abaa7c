import CMicroHTTPD
import Synchronization

/// A response whose body and headers were checked and copied once, for bodies the app caches
/// and serves many times.
///
/// A libmicrohttpd response is immutable once queued (connections read its header list while
/// sending), so per-request headers such as `X-Request-Id` cannot be added to one shared
/// object. Instead each prepared response keeps a small pool of libmicrohttpd responses over
/// the same body bytes: a request borrows one (``lease(adding:)``), swaps the per-request
/// headers (one delete and one add each), and gives it back when libmicrohttpd reports the
/// request complete. Nothing is copied per request and only the swapped headers allocate.
final class PreparedResponse: @unchecked Sendable {
    private struct Spare: @unchecked Sendable {
        let handle: OpaquePointer
        var added: [(name: String, value: String)]
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
        spares.withLock { $0.append(Spare(handle: first, added: [])) }
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

    /// A response for one request carrying `extra` headers on top of the prepared ones; give it
    /// back with ``giveBack(_:)`` once libmicrohttpd completed the request.
    func lease(adding extra: [(name: String, value: String)]) -> ResponseLease? {
        var spare = spares.withLock { $0.popLast() }
        if spare == nil {
            guard let handle = makeHandle() else { return nil }
            spare = Spare(handle: handle, added: [])
        }
        guard var spare else { return nil }
        for field in spare.added {
            _ = MHD_del_response_header(spare.handle, field.name, field.value)
        }
        spare.added.removeAll(keepingCapacity: true)
        for field in extra where MHD_add_response_header(spare.handle, field.name, field.value) == .YES {
            spare.added.append(field)
        }
        return ResponseLease(owner: self, handle: spare.handle, added: spare.added)
    }

    /// Returns a leased response to the pool (or frees it when the pool is full).
    func giveBack(_ lease: ResponseLease) {
        let kept = spares.withLock { spares -> Bool in
            guard spares.count < PreparedResponse.poolLimit else { return false }
            spares.append(Spare(handle: lease.handle, added: lease.added))
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
