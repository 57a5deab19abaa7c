/// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing
/// above U+10FFFF), checked eight ASCII bytes at a time, without making a string.
public enum UTF8Validation {
    /// True when `bytes` are all well-formed UTF-8 (an empty buffer is).
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            // Feeds are mostly ASCII markup: skip it a word at a time.
            while index + 8 <= count,
                bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { break }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)  // no overlong three-byte form
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)  // no UTF-16 surrogates
            case 0xF0: (length, low) = (4, 0x90)  // no overlong four-byte form
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)  // nothing above U+10FFFF
            default: return false
            }
            guard index + length <= count, (low...high).contains(bytes[index + 1]) else { return false }
            for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) {
                return false
            }
            index += length
        }
        return true
    }
}
