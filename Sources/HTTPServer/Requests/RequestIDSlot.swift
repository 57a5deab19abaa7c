import CMicroHTTPD
import Foundation

/// The `X-Request-Id` value on a pooled libmicrohttpd response, rewritten in place for each
/// borrower.
///
/// Swapping the header (one delete and one add) costs libmicrohttpd three frees and three
/// allocations per request, about a sixth of a cached GET's work. Ids the server makes are all
/// 16 characters, so the next borrower's id nearly always fits the bytes of the previous one:
/// libmicrohttpd 0.9.75 keeps each header value as its own heap copy (`strdup` in
/// `MHD_add_response_header`, returned as is by `MHD_get_response_header`) and formats the
/// header block from those values each time it sends the response, so writing the new id over
/// the old one is all it takes. Only the borrower touches the slot: a pooled response is lent
/// to one request at a time, and libmicrohttpd reads its headers only while sending it.
struct RequestIDSlot: @unchecked Sendable {
    /// libmicrohttpd's copy of the value (NUL-terminated, `length` bytes before the NUL).
    private let value: UnsafeMutablePointer<CChar>
    private let length: Int

    /// Puts `id` on `response` as a new header, taking `previous` (another length) off first;
    /// nil when libmicrohttpd refuses it.
    init?(replacing previous: RequestIDSlot?, with id: RequestIdentity, on response: OpaquePointer) {
        if let previous {
            // A copy: libmicrohttpd frees its own while it compares.
            RequestID.remove(String(cString: previous.value), from: response)
        }
        RequestID.add(id.text, to: response)
        guard let stored = MHD_get_response_header(response, RequestID.cHeaderName.pointer) else {
            return nil
        }
        // The header API hands out const pointers; the value is libmicrohttpd's writable heap copy.
        value = UnsafeMutablePointer(mutating: stored)
        length = strlen(stored)
    }

    /// Writes `id` over the current value when it has the same length; false (nothing written)
    /// otherwise.
    func overwrite(with id: RequestIdentity) -> Bool {
        id.withUTF8 { bytes in
            guard bytes.count == length, let source = bytes.baseAddress else { return false }
            UnsafeMutableRawPointer(value).copyMemory(from: source, byteCount: length)
            return true
        }
    }
}
