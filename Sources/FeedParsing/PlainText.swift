/// HTML as found in feeds turned into plain text, in one pass over its bytes
/// (``HTMLTextScanner``, which reads text as libxml2's HTML parser does, without building its
/// tree): text only; `script`, `style`, `template`, `noscript`, `iframe`, `object`, the head and
/// comments dropped; block elements and `<br>` as line breaks; entities decoded once. Item text
/// is data; nothing here is ever rendered as markup.
public enum PlainText {
    /// The text of `html` with its line breaks, at most `limit` characters.
    public static func from(html: String, limit: Int) -> String {
        read(html: html, limit: limit).text
    }

    /// The text of `html` (with line breaks, or collapsed onto `oneLine` for titles), at most
    /// `limit` characters, and its first `<img src>`.
    public static func read(html: String, limit: Int, oneLine: Bool = false) -> Reading {
        var html = html
        let scanner = html.withUTF8 { HTMLTextScanner($0) }
        let text = String(decoding: scanner.text, as: UTF8.self)
        return Reading(
            text: oneLine ? collapse(text, limit: limit) : lines(text, limit: limit),
            firstImage: scanner.firstImage)
    }

    /// `text` with runs of whitespace made one space, trimmed, cut to `limit` characters.
    public static func collapse(_ text: String, limit: Int) -> String {
        normalize(text, limit: limit, keepingLines: false)
    }

    /// `text` line by line, each collapsed, blank lines dropped, joined with `\n` and cut to
    /// `limit` characters.
    public static func lines(_ text: String, limit: Int) -> String {
        normalize(text, limit: limit, keepingLines: true)
    }

    /// `text` without leading and trailing whitespace (Unicode's White_Space, newlines
    /// included); `text` itself when there is none. In Swift, without Foundation's
    /// `trimmingCharacters`, which bridges to NSString and cost about 27,000 instructions per
    /// link (a tenth of a feed's parse).
    public static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// One pass over the UTF-8 bytes, writing UTF-8: ASCII is copied a run at a time, and only
    /// outside ASCII is a scalar decoded and its Unicode properties looked up. The cut counts
    /// scalars, so the result never has more than `limit` characters.
    private static func normalize(_ text: String, limit: Int, keepingLines: Bool) -> String {
        var text = text
        return text.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(min(bytes.count, limit * 4))
            var count = 0
            var pending: UInt8?
            var index = 0
            while index < bytes.count, count < limit {
                let byte = bytes[index]
                let scalar: Unicode.Scalar
                let length: Int
                if byte < 0x80 {
                    (scalar, length) = (Unicode.Scalar(byte), 1)
                } else {
                    length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                    var value = UInt32(byte) & (0x7F >> UInt32(length))
                    for offset in 1..<length { value = value << 6 | UInt32(bytes[index + offset] & 0x3F) }
                    scalar = Unicode.Scalar(value) ?? "\u{FFFD}"
                }
                if keepingLines && isLineBreak(scalar) {
                    if count > 0 { pending = UInt8(ascii: "\n") }
                } else if isSpace(scalar) {
                    if count > 0 && pending == nil { pending = UInt8(ascii: " ") }
                } else {
                    if let separator = pending {
                        guard count + 1 < limit else { break }
                        result.append(separator)
                        count += 1
                        pending = nil
                    }
                    // Byte by byte: append(contentsOf:) a slice per character cost twice as much.
                    for offset in 0..<length { result.append(bytes[index + offset]) }
                    count += 1
                }
                index += length
            }
            return String(decoding: result, as: UTF8.self)
        }
    }

    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Whitespace and control characters (NO-BREAK SPACE included).
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F
            || (scalar.value >= 0x80 && (scalar.properties.isWhitespace || scalar.value < 0xA0))
    }
}
