import CMicroHTTPD

/// A libmicrohttpd response object built once and queued for many requests.
///
/// libmicrohttpd reference-counts responses, so one object can be queued on any number of
/// connections from any thread; building it once saves a body copy and a header allocation per
/// request for bodies the app caches anyway.
final class PreparedResponse: @unchecked Sendable {
    let handle: OpaquePointer

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
        handle = created
    }

    deinit {
        MHD_destroy_response(handle)
    }
}
