import Compression

/// `Accept-Encoding` negotiation (RFC 9110 §12.5.3), run on every cached GET, so it scans the
/// header's bytes without allocating.
///
/// The highest `q` wins; ties go to the server's order (br, gzip, identity). `q=0` refuses a
/// coding, `*` stands for every coding not named, and identity is acceptable unless refused by
/// `identity;q=0` or `*;q=0`; when not named it ranks below every accepted coding. Entries with
/// an invalid `q` (`q=2`, `q=abc`) are ignored, as is anything that is not a token. When every
/// offered coding is refused the answer is identity anyway, which the RFC allows instead of a 406.
enum AcceptEncoding {
    /// The coding to send for `header`, given which compressed variants exist.
    static func choose(_ header: String?, brotli: Bool, gzip: Bool) -> ContentCoding {
        guard let header, brotli || gzip else { return .identity }
        let qualities = qualities(header)
        func resolve(_ quality: Int, otherwise: Int) -> Int {
            quality >= 0 ? quality : (qualities.star >= 0 ? qualities.star : otherwise)
        }
        let br = brotli ? resolve(qualities.br, otherwise: 0) : 0
        let gz = gzip ? resolve(qualities.gzip, otherwise: 0) : 0
        // Identity not named is acceptable but ranked last: any accepted compression beats it.
        let identity = resolve(qualities.identity, otherwise: 0)
        if br > 0, br >= gz, br >= identity { return .br }
        if gz > 0, gz >= identity { return .gzip }
        return .identity
    }

    /// What browsers send today (Chromium, Firefox, Safari; curl's `--compressed`), parsed once:
    /// comparing the header with these few strings is cheaper than parsing it on every request.
    private static let common: [(header: String, qualities: Qualities)] = [
        "gzip, deflate, br, zstd", "gzip, deflate, br", "gzip, deflate", "deflate, gzip, br, zstd",
        "deflate, gzip",
    ].map { header in (header, parse(header)) }

    /// The header's qualities: from ``common`` when it is one of those, else parsed.
    static func qualities(_ header: String) -> Qualities {
        // `==` on strings does not look at their lengths first; most candidates differ in length.
        let length = header.utf8.count
        for entry in common where entry.header.utf8.count == length && entry.header == header {
            return entry.qualities
        }
        return parse(header)
    }

    /// Parses the header's bytes.
    private static func parse(_ header: String) -> Qualities {
        var text = header
        return text.withUTF8 { parse($0) }
    }

    /// Qualities in thousandths; -1 where the header does not name the coding.
    struct Qualities: Equatable, Sendable {
        var br = -1
        var gzip = -1
        var identity = -1
        var star = -1
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Qualities {
        var result = Qualities()
        var index = 0
        let end = bytes.count
        while index < end {
            // One element: token [ OWS ";" OWS "q=" qvalue ] up to the next comma.
            var elementEnd = index
            while elementEnd < end, bytes[elementEnd] != 44 { elementEnd += 1 }
            if let (name, quality) = element(bytes, from: index, to: elementEnd) {
                switch name {
                case .br: result.br = max(result.br, quality)
                case .gzip: result.gzip = max(result.gzip, quality)
                case .identity: result.identity = max(result.identity, quality)
                case .star: result.star = max(result.star, quality)
                case .other: break
                }
            }
            index = elementEnd + 1
        }
        return result
    }

    enum Name {
        case br, gzip, identity, star, other
    }

    private static func element(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (
        Name, Int
    )? {
        var index = skipSpace(bytes, start, end)
        let tokenStart = index
        while index < end, isTokenByte(bytes[index]) { index += 1 }
        guard index > tokenStart else { return nil }
        let name = classify(bytes, tokenStart, index)
        var quality = 1000
        index = skipSpace(bytes, index, end)
        while index < end {
            guard bytes[index] == 59 else { return nil }  // ';'
            index = skipSpace(bytes, index + 1, end)
            let parameterStart = index
            while index < end, bytes[index] != 59 { index += 1 }
            var parameterEnd = index
            while parameterEnd > parameterStart, bytes[parameterEnd - 1] == 32 || bytes[parameterEnd - 1] == 9
            {
                parameterEnd -= 1
            }
            if parameterEnd - parameterStart >= 2, bytes[parameterStart] | 0x20 == 113,
                bytes[parameterStart + 1] == 61
            {
                guard let value = qvalue(bytes, parameterStart + 2, parameterEnd) else { return nil }
                quality = value
            }
        }
        return (name, quality)
    }

    /// `0[.ddd]` or `1[.000]`, in thousandths; nil when malformed.
    private static func qvalue(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int? {
        guard start < end, bytes[start] == 48 || bytes[start] == 49 else { return nil }
        var value = Int(bytes[start] - 48) * 1000
        guard start + 1 < end else { return value }
        guard bytes[start + 1] == 46, end - start - 2 <= 3 else { return nil }
        var scale = 100
        for index in (start + 2)..<end {
            guard (48...57).contains(bytes[index]) else { return nil }
            value += Int(bytes[index] - 48) * scale
            scale /= 10
        }
        return value <= 1000 ? value : nil
    }

    private static func classify(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Name {
        func equals(_ literal: StaticString) -> Bool {
            guard literal.utf8CodeUnitCount == end - start else { return false }
            let pointer = literal.utf8Start
            for offset in 0..<(end - start) where bytes[start + offset] | 0x20 != pointer[offset] {
                return false
            }
            return true
        }
        if equals("br") { return .br }
        if equals("gzip") || equals("x-gzip") { return .gzip }
        if equals("identity") { return .identity }
        if end - start == 1, bytes[start] == 42 { return .star }
        return .other
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var index = start
        while index < end, bytes[index] == 32 || bytes[index] == 9 { index += 1 }
        return index
    }

    /// RFC 9110 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: true
        default: false
        }
    }
}
