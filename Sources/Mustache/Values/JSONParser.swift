/// A strict RFC 8259 JSON reader that produces ``MustacheValue`` directly.
///
/// Foundation's `JSONSerialization` would lose what Mustache needs: numbers
/// as written (`1.50` becomes `1.5`) and, on Linux, the difference between
/// `true` and `1` (both arrive as `NSNumber`). Reading bytes ourselves keeps
/// both and avoids an intermediate object graph.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Deep enough for any real document, shallow enough that recursion cannot overflow a thread stack.
    private static let maximumDepth = 512

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document (any value at the top level).
    static func parse(_ bytes: [UInt8]) throws(MustacheError) -> MustacheValue {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is not JSON, but editors add it; tolerate it.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.index = 3
        }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else {
            throw parser.error("unexpected content after the JSON value")
        }
        return value
    }

    /// Whether `bytes` is exactly one JSON number.
    static func isValidNumber(_ bytes: [UInt8]) -> Bool {
        var parser = JSONParser(bytes: bytes)
        guard (try? parser.parseNumber()) != nil else { return false }
        return parser.index == bytes.count
    }

    private func error(_ message: String, at offset: Int? = nil) -> MustacheError {
        let position = SourcePosition(offset: offset ?? index, in: bytes)
        return MustacheError(
            kind: .invalidJSON, message: "invalid JSON: \(message)", line: position.line,
            column: position.column)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current,
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            index += 1
        }
    }

    private mutating func parseValue() throws(MustacheError) -> MustacheValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseList()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default:
            throw error("unexpected character '\(Unicode.Scalar(byte))'")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(MustacheError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        let matches =
            index + count <= bytes.count
            && literal.withUTF8Buffer { expected in
                expected.elementsEqual(bytes[index..<index + count])
            }
        guard matches else { throw error("invalid literal", at: start) }
        index += count
    }

    private mutating func enterContainer() throws(MustacheError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw error("nesting deeper than \(Self.maximumDepth) levels")
        }
    }

    private mutating func parseObject() throws(MustacheError) -> MustacheValue {
        try enterContainer()
        defer { depth -= 1 }
        index += 1
        var fields: [String: MustacheValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            fields[key] = try parseValue()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(fields)
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseList() throws(MustacheError) -> MustacheValue {
        try enterContainer()
        defer { depth -= 1 }
        index += 1
        var items: [MustacheValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .list(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .list(items)
            default: throw error("expected ',' or ']' in a list")
            }
        }
    }

    private mutating func parseNumber() throws(MustacheError) -> MustacheNumber {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("invalid number", at: start) }
        index += 1
        if first != UInt8(ascii: "0") {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, isDigit(digit) else { throw error("invalid number", at: start) }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw error("invalid number", at: start) }
            skipDigits()
        }
        return MustacheNumber(validatedText: String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    private mutating func parseString() throws(MustacheError) -> String {
        let start = index
        index += 1
        let contentStart = index
        // Fast path: most strings have no escapes and can be decoded in one go.
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            index += 1
        }
        guard let stop = current else { throw error("unterminated string", at: start) }
        if stop == UInt8(ascii: "\"") {
            let text = try decodeUTF8(bytes[contentStart..<index], at: contentStart)
            index += 1
            return text
        }
        var buffer = Array(bytes[contentStart..<index])
        while true {
            guard let byte = current else { throw error("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try decodeUTF8(buffer[...], at: contentStart)
            case UInt8(ascii: "\\"):
                index += 1
                try appendEscape(to: &buffer)
            case 0..<0x20:
                throw error("control character in string")
            default:
                buffer.append(byte)
                index += 1
            }
        }
    }

    private func decodeUTF8(_ slice: ArraySlice<UInt8>, at offset: Int) throws(MustacheError) -> String {
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw error("invalid UTF-8 in string", at: offset)
        }
        return text
    }

    private mutating func appendEscape(to buffer: inout [UInt8]) throws(MustacheError) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = try parseHex4()
            if (0xD800...0xDBFF).contains(scalarValue) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count,
                    bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in \\u escape") }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else {
                throw error("unpaired surrogate in \\u escape")
            }
            buffer.append(contentsOf: String(Character(scalar)).utf8)
        default:
            throw error("invalid escape '\\\(Unicode.Scalar(byte))'", at: index - 2)
        }
    }

    private mutating func parseHex4() throws(MustacheError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
