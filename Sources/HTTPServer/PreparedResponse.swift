import CMicroHTTPD

/// A response whose body and headers were checked and copied once, for bodies the app caches
/// and serves many times.
///
/// libmicrohttpd reference-counts responses, so the shared object (`handle`) can be queued on
/// any number of connections from any thread when nothing per request is added. When the
/// server adds per-request headers (`X-Request-Id`), ``instance()`` makes a light response
/// that points at the same body bytes (no copy; the instance keeps this object alive until
/// libmicrohttpd frees it) and carries the same headers.
final class PreparedResponse: @unchecked Sendable {
    let handle: OpaquePointer
    private let headers: HTTPHeaders
    private let bytes: UnsafeMutableRawBufferPointer
    private let count: Int

    init?(_ response: Response) {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        for field in response.headers where MHD_add_response_header(created, field.name, field.value) == .NO {
            MHD_destroy_response(created)
            return nil
        }
        let copy = UnsafeMutableRawBufferPointer.allocate(
            byteCount: max(1, response.body.count), alignment: 1)
        response.body.withUnsafeBytes { copy.copyMemory(from: $0) }
        handle = created
        headers = response.headers
        bytes = copy
        count = response.body.count
    }

    /// A new libmicrohttpd response (owned by the caller) over the shared body bytes with this
    /// response's headers, ready for per-request additions; nil if libmicrohttpd is out of memory.
    func instance() -> OpaquePointer? {
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard
            let created = MHD_create_response_from_buffer_with_free_callback_cls(
                count, bytes.baseAddress, mhdReleasePrepared, retained)
        else {
            Unmanaged<PreparedResponse>.fromOpaque(retained).release()
            return nil
        }
        // Every header was accepted by libmicrohttpd in init, so none is refused here.
        for field in headers {
            _ = MHD_add_response_header(created, field.name, field.value)
        }
        return created
    }

    deinit {
        MHD_destroy_response(handle)
        bytes.deallocate()
    }
}

/// libmicrohttpd's free callback for ``PreparedResponse/instance()``: drops the reference that
/// kept the shared bytes alive.
func mhdReleasePrepared(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<PreparedResponse>.fromOpaque(cls).release()
}
