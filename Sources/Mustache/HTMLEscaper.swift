/// Appends text with the five HTML-significant characters replaced.
///
/// `&`, `<`, `>`, `"` and `'` become `&amp;`, `&lt;`, `&gt;`, `&quot;` and
/// `&#39;`, which is enough for element content and quoted attribute values.
enum HTMLEscaper {
    static func append(_ text: String, to output: inout String) {
        let utf8 = text.utf8
        // Most values contain none of the five characters; one scan then one append.
        let needsEscaping =
            utf8.withContiguousStorageIfAvailable { buffer in
                buffer.contains(where: isSpecial)
            } ?? utf8.contains(where: isSpecial)
        guard needsEscaping else {
            output.append(text)
            return
        }
        var runStart = utf8.startIndex
        var index = runStart
        while index != utf8.endIndex {
            let replacement: String
            switch utf8[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            default:
                utf8.formIndex(after: &index)
                continue
            }
            // The special characters are ASCII, so these indices are always character boundaries.
            output.append(contentsOf: text[runStart..<index])
            output.append(replacement)
            utf8.formIndex(after: &index)
            runStart = index
        }
        output.append(contentsOf: text[runStart...])
    }

    @inline(__always)
    private static func isSpecial(_ byte: UInt8) -> Bool {
        // All five special characters are below `?`; most text bytes are not.
        byte < UInt8(ascii: "?")
            && (byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'"))
    }
}
