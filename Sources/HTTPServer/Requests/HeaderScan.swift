import CMicroHTTPD
import Foundation

/// One pass over a request's header fields, in libmicrohttpd's own list (nothing is copied),
/// for what deciding on a stored response needs: the values of a few named fields (a stored
/// response's `Vary` names and the validators), whether the request has a `Host` or a body, and
/// its `X-Request-Id`. Not copyable: it runs on every request, and a copy would retain and
/// release its names.
struct HeaderScan: ~Copyable {
    /// A field's value where libmicrohttpd keeps it, valid until the request completes.
    struct Value {
        var bytes: UnsafePointer<CChar>?
        var count = 0
    }

    /// Most names collected: a stored response's `Vary` names (at most 4) and the validators.
    static let maxNames = 6

    /// The lowercase names whose values are collected, at most ``maxNames``.
    let names: [[UInt8]]
    /// Each name's length (read for every field: cheaper here than through the nested arrays).
    private var nameLengths = InlineArray<6, Int>(repeating: -1)
    /// Bit `n` set when a name is `n` bytes long (names under 64 bytes; longer ones set bit 63):
    /// most fields (`Host`, `User-Agent`, …) are told apart from every name by one test.
    private var lengthBits: UInt64 = 0
    /// The value of each name, in the same order; `bytes` nil when the field is absent.
    var values = InlineArray<6, Value>(repeating: Value())
    var hasHost = false
    /// The `X-Request-Id` field's value (a C string), read in the same pass.
    var requestID: UnsafePointer<CChar>?
    /// `Content-Length` or `Transfer-Encoding`: the request has (or claims) a body.
    var hasBodyFraming = false
    /// A collected name appeared more than once (its value would be ambiguous).
    var hasRepeatedName = false

    /// Scans the header fields of the request on `connection`.
    init(names: [[UInt8]], connection: OpaquePointer) {
        self.names = names
        for index in names.indices.prefix(Self.maxNames) {
            nameLengths[index] = names[index].count
            lengthBits |= Self.lengthBit(names[index].count)
        }
        withUnsafeMutablePointer(to: &self) { scan in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdScanField, scan)
        }
    }

    /// Whether a bodyless request with these fields may be answered without routing: the
    /// checks the server makes before routing (an HTTP/1.1 `Host`) would pass, and nothing
    /// beyond the collected fields matters to the answer.
    func allowsStoredResponse(http11: Bool) -> Bool {
        !hasBodyFraming && !hasRepeatedName && (hasHost || !http11)
    }

    fileprivate mutating func note(
        _ name: UnsafeBufferPointer<UInt8>, value: UnsafePointer<CChar>?, count: Int
    ) {
        switch name.count {
        case 4: if Self.equalsLowercase(name, "host") { hasHost = true }
        case 12: if requestID == nil, Self.equalsLowercase(name, "x-request-id") { requestID = value }
        case 14: if Self.equalsLowercase(name, "content-length") { hasBodyFraming = true }
        case 17: if Self.equalsLowercase(name, "transfer-encoding") { hasBodyFraming = true }
        default: break
        }
        guard lengthBits & Self.lengthBit(name.count) != 0 else { return }
        for index in nameLengths.indices where nameLengths[index] == name.count {
            guard names[index].withUnsafeBufferPointer({ String.caseInsensitiveBytesEqual(name, $0) }) else {
                continue
            }
            if values[index].bytes != nil { hasRepeatedName = true }
            values[index] = Value(bytes: value ?? Self.empty.pointer, count: count)
        }
    }

    private static func lengthBit(_ length: Int) -> UInt64 {
        1 << UInt64(min(length, 63))
    }

    /// Whether `name` spells `lowercase` in any case (header names are ASCII tokens).
    private static func equalsLowercase(_ name: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool
    {
        lowercase.withUTF8Buffer { String.caseInsensitiveBytesEqual(name, $0) }
    }

    /// A field sent with an empty value: present, zero bytes.
    private static let empty = CStringConstant("")
}

private func mhdScanField(
    _ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ keySize: Int,
    _ value: UnsafePointer<CChar>?, _ valueSize: Int
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let scan = cls.assumingMemoryBound(to: HeaderScan.self)
    // The name's bytes as UInt8 (CChar's layout); read only, while libmicrohttpd keeps them.
    let name = UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self)
    scan.pointee.note(UnsafeBufferPointer(start: name, count: keySize), value: value, count: valueSize)
    return .YES
}
