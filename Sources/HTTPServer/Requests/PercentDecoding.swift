/// Percent-decoding for request targets, done exactly once per request.
///
/// The server installs an identity unescaper in libmicrohttpd, so every byte of the path and
/// query arrives raw and is decoded here; nothing is ever decoded twice.
enum PercentDecoding {
    /// Why a component could not be decoded.
    enum Failure: Error, Equatable {
        case badEscape
        case invalidUTF8
        case nulByte
    }

    /// Decodes `%XX` escapes (and `+` as space when `plusIsSpace`), rejecting bad escapes,
    /// NUL bytes and invalid UTF-8 so that later code only ever sees clean strings.
    /// As below, but hands back `input` itself, uncopied, when there is nothing to decode.
    static func decode(_ input: String, plusIsSpace: Bool) throws(Failure) -> String {
        var scanned = input
        let clean = scanned.withUTF8 { bytes in
            for byte in bytes where byte == 37 || byte == 0 || (plusIsSpace && byte == 43) {
                return false
            }
            return true
        }
        if clean { return input }
        return try decode(input[...], plusIsSpace: plusIsSpace)
    }

    static func decode(_ input: Substring, plusIsSpace: Bool) throws(Failure) -> String {
        let utf8 = input.utf8
        if !utf8.contains(where: { $0 == 37 || $0 == 0 || (plusIsSpace && $0 == 43) }) {
            return String(input)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            switch byte {
            case 37:
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { throw .badEscape }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[second])
                else { throw .badEscape }
                let decoded = high << 4 | low
                if decoded == 0 { throw .nulByte }
                bytes.append(decoded)
                index = utf8.index(after: second)
                continue
            case 43 where plusIsSpace:
                bytes.append(32)
            case 0:
                throw .nulByte
            default:
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }
}
