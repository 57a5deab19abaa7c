import CMicroHTTPD
import Synchronization

/// `X-Request-Id`: a client's value is kept when it is 1–64 characters of `A-Z a-z 0-9 . _ -`
/// (safe in headers, logs and JSON without escaping); otherwise a new 16-hex-digit id is made.
enum RequestID {
    /// The header's name for libmicrohttpd's calls, which take it on every request.
    static let cHeaderName = CStringConstant("X-Request-Id")

    // withCString in both, not the implicit conversion, which copies the string into a new array.

    /// Sets `value` as the `X-Request-Id` of a libmicrohttpd response.
    static func add(_ value: String, to response: OpaquePointer) {
        _ = value.withCString { MHD_add_response_header(response, cHeaderName.pointer, $0) }
    }

    /// Takes the `X-Request-Id` `value` off a libmicrohttpd response (a pooled one, for reuse).
    static func remove(_ value: String, from response: OpaquePointer) {
        _ = value.withCString { MHD_del_response_header(response, cHeaderName.pointer, $0) }
    }
    static let maxLength = 64

    /// Why a client's value was refused, or nil when it is acceptable.
    static func problem(with value: UnsafePointer<CChar>) -> String? {
        var length = 0
        var pointer = value
        while pointer.pointee != 0 {
            let byte = UInt8(bitPattern: pointer.pointee)
            guard isSafe(byte) else { return "characters outside A-Z a-z 0-9 . _ -" }
            length += 1
            guard length <= maxLength else { return "longer than \(maxLength) characters" }
            pointer += 1
        }
        return length == 0 ? "empty" : nil
    }

    static func isSafe(_ byte: UInt8) -> Bool {
        (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 45
            || byte == 46 || byte == 95
    }

    /// Unique per process and unpredictable: SplitMix64 (a bijection) over a counter that
    /// starts at a random value, so ids never repeat within a run and need no syscall.
    private static let sequence = Atomic<UInt64>(UInt64.random(in: .min ... .max))

    static func generate() -> RequestIdentity {
        var z = sequence.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return .made(z)
    }

    /// Writes `value` as 16 lowercase hex digits into the first 16 bytes of `buffer`: eight
    /// digits at a time in a 64-bit word (every request gets a new id, and a loop over a digit
    /// table cost three times as many instructions).
    static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= 16)
        let raw = UnsafeMutableRawPointer(buffer.baseAddress!)
        // Big-endian words: the most significant digit first in memory.
        raw.storeBytes(of: hexDigits(UInt32(truncatingIfNeeded: value >> 32)).bigEndian, as: UInt64.self)
        raw.storeBytes(
            of: hexDigits(UInt32(truncatingIfNeeded: value)).bigEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// The eight hex digits of `value` as ASCII bytes, the last digit in the lowest byte.
    private static func hexDigits(_ value: UInt32) -> UInt64 {
        // Spread the nibbles one per byte: halves, then bytes, then nibbles move apart.
        var x = UInt64(value)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        x = (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
        // 1 in each byte whose nibble is over 9 (adding 6 carries into bit 4 exactly then).
        let letters = ((x &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        // '0' + n, and 39 more for a-f ('a' is '0' + 49).
        return x &+ 0x3030_3030_3030_3030 &+ letters &* 39
    }
}
