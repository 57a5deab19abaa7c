/// Appends text with the five HTML-significant characters replaced.
///
/// `&`, `<`, `>`, `"` and `'` become `&amp;`, `&lt;`, `&gt;`, `&quot;` and
/// `&#39;`, which is enough for element content and quoted attribute values.
enum HTMLEscaper {
    static func append(_ text: String, to output: inout [UInt8]) {
        let handled: Void? = text.utf8.withContiguousStorageIfAvailable { append($0, to: &output) }
        if handled == nil {
            // Bridged or otherwise non-contiguous strings: make a native copy once.
            var copy = text
            copy.withUTF8 { append($0, to: &output) }
        }
    }

    /// One bit per special character; all five are below 64, so a shift and
    /// a mask classify a byte without branching on each candidate.
    private static let specialMask: UInt64 =
        1 << UInt64(UInt8(ascii: "&")) | 1 << UInt64(UInt8(ascii: "<")) | 1 << UInt64(UInt8(ascii: ">"))
        | 1 << UInt64(UInt8(ascii: "\"")) | 1 << UInt64(UInt8(ascii: "'"))

    private static func append(_ text: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let mask = specialMask
        var runStart = 0
        for index in 0..<text.count {
            let byte = text[index]
            guard byte < 64, mask & (1 << UInt64(byte)) != 0 else { continue }
            let replacement: StaticString
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            default: continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart..<index]))
            replacement.withUTF8Buffer { output.append(contentsOf: $0) }
            runStart = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: text[runStart...]))
    }
}
