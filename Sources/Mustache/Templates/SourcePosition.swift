/// A 1-based line and column inside UTF-8 source text.
///
/// Parsers work on byte offsets for speed and only convert to line and
/// column when they report an error, so this conversion can afford a scan.
struct SourcePosition: Sendable, Equatable {
    let line: Int
    let column: Int

    /// Locates `offset` in `bytes`; the column counts characters, not bytes,
    /// so that it matches what an editor shows for non-ASCII lines.
    init(offset: Int, in bytes: [UInt8]) {
        let offset = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        for index in 0..<offset where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        self.line = line
        self.column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
    }
}
