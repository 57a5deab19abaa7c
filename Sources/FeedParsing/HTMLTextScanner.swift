import CLibXML2

/// One pass over HTML's UTF-8 bytes that keeps its text, for ``PlainText``: tags are dropped,
/// the contents of hidden elements skipped, block elements and `<br>` become line breaks,
/// character and entity references are decoded once, and the first `<img src>` is noted.
///
/// It replaces a libxml2 HTML tree per field, which cost a parser, a dictionary and a tree for
/// each title and description (about 16,000 per 16 MiB feed): a feed's HTML is only ever read
/// for its text here, so no tree is needed. It follows libxml2's HTML parser where text is
/// concerned (measured against it, see PlainTextTests): `script` and `style` are raw text up to
/// their own end tag; comments, doctypes and processing instructions are dropped (an unclosed
/// comment drops the rest); a `<` that starts no tag is text; `&name;` is decoded from libxml2's
/// HTML 4 table (an unknown name or a bare `&` stays as written); a numeric reference is decoded
/// with or without its `;`, and one that names no character is dropped.
struct HTMLTextScanner {
    /// The text, UTF-8, with a `\n` at each block boundary (not yet collapsed).
    private(set) var text: [UInt8] = []
    /// The first `<img>`'s `src`, decoded.
    private(set) var firstImage: String?
    /// The hidden elements open around the current position, innermost last.
    private var hiddenOpen: [String] = []

    /// Elements whose contents never show as text (see ``PlainText``).
    static let hidden: Set<String> = [
        "script", "style", "template", "noscript", "iframe", "object", "head", "title",
    ]

    /// How many nested hidden elements are tracked.
    static let maxHiddenDepth = 256

    /// Elements read as raw text up to their own end tag, as libxml2's HTML parser does.
    private static let rawText: Set<String> = ["script", "style"]

    /// Elements that start and end a line.
    static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tr", "ul",
    ]

    /// Elements that never have contents or an end tag.
    private static let void: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
        "track", "wbr",
    ]

    /// Scans `html`.
    init(_ html: UnsafeBufferPointer<UInt8>) {
        text.reserveCapacity(html.count)
        var index = 0
        let count = html.count
        while index < count {
            let byte = html[index]
            if byte == UInt8(ascii: "<") {
                index = markup(html, at: index)
            } else if byte == UInt8(ascii: "&") {
                index = reference(html, at: index, keeping: hiddenOpen.isEmpty)
            } else {
                // A run of plain text, copied at once.
                var end = index + 1
                while end < count, html[end] != UInt8(ascii: "<"), html[end] != UInt8(ascii: "&") { end += 1 }
                if hiddenOpen.isEmpty {
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: html[index..<end]))
                }
                index = end
            }
        }
    }

    // MARK: Markup

    /// Reads the markup at `start` (a `<`) and returns the index after it.
    private mutating func markup(_ html: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        let count = html.count
        guard start + 1 < count else {
            appendText(UInt8(ascii: "<"))
            return count
        }
        let next = html[start + 1]
        if next == UInt8(ascii: "!") {
            if starts(html, "<!--", at: start) {
                // An unclosed comment hides the rest, as in libxml2.
                return find(html, "-->", from: start + 4).map { $0 + 3 } ?? count
            }
            return skipTag(html, from: start + 2)  // <!DOCTYPE …>, <![CDATA[…]]>-like, <!x>
        }
        if next == UInt8(ascii: "?") { return skipTag(html, from: start + 2) }
        let isEnd = next == UInt8(ascii: "/")
        let nameStart = isEnd ? start + 2 : start + 1
        guard nameStart < count, isASCIILetter(html[nameStart]) else {
            // Not a tag: `a < b`, `</ x>`.
            appendText(UInt8(ascii: "<"))
            return start + 1
        }
        var nameEnd = nameStart + 1
        while nameEnd < count, isNameByte(html[nameEnd]) { nameEnd += 1 }
        let name = lowercased(html, nameStart..<nameEnd)
        if isEnd {
            endElement(name)
            return skipTag(html, from: nameEnd)
        }
        let (tagEnd, selfClosing) = attributes(
            html, from: nameEnd, image: name == "img" && firstImage == nil && hiddenOpen.isEmpty)
        guard tagEnd <= count else { return count }
        var end = tagEnd  // an unfinished tag at the end is dropped
        if Self.rawText.contains(name) && !selfClosing {
            // Raw text up to `</name` (any case); without one, the rest of the input.
            end = findEndTag(html, name, from: end) ?? count
            if end < count { end = skipTag(html, from: end + 2 + name.utf8.count) }
            if Self.blocks.contains(name) { appendBreak() }
            return end
        }
        startElement(name, selfClosing: selfClosing)
        return end
    }

    private mutating func startElement(_ name: String, selfClosing: Bool) {
        if Self.blocks.contains(name) { appendBreak() }
        // Past `maxHiddenDepth` the text is hidden anyway; not growing the stack keeps each end
        // tag's search short (thousands of `<object>` then `</iframe>`s would be quadratic).
        if Self.hidden.contains(name), !selfClosing, !Self.void.contains(name),
            hiddenOpen.count < Self.maxHiddenDepth
        {
            hiddenOpen.append(name)
        }
    }

    /// An end tag closes its element and any hidden one opened inside it and left open.
    private mutating func endElement(_ name: String) {
        if Self.hidden.contains(name), let open = hiddenOpen.lastIndex(of: name) {
            hiddenOpen.removeSubrange(open...)
        }
        if Self.blocks.contains(name) { appendBreak() }
    }

    /// Skips the attributes after a start tag's name; returns the index after its `>` (past
    /// the end when there is none) and whether it ended in `/>`. Reads `src` when `image`.
    private mutating func attributes(_ html: UnsafeBufferPointer<UInt8>, from start: Int, image: Bool)
        -> (Int, Bool)
    {
        let count = html.count
        var index = start
        while index < count {
            let byte = html[index]
            if byte == UInt8(ascii: ">") {
                return (index + 1, index > start && html[index - 1] == UInt8(ascii: "/"))
            }
            guard !isSpace(byte), byte != UInt8(ascii: "/") else {
                index += 1
                continue
            }
            // name[=value]
            let nameStart = index
            while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: "="),
                html[index] != UInt8(ascii: ">")
            {
                index += 1
            }
            let nameEnd = index
            while index < count, isSpace(html[index]) { index += 1 }
            guard index < count, html[index] == UInt8(ascii: "=") else { continue }
            index += 1
            while index < count, isSpace(html[index]) { index += 1 }
            guard index < count else { break }
            let valueStart: Int
            let valueEnd: Int
            let quote = html[index]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                valueStart = index + 1
                guard let close = firstIndex(of: quote, in: html, from: valueStart) else {
                    return (count + 1, false)
                }
                valueEnd = close
                index = close + 1
            } else {
                valueStart = index
                while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: ">") { index += 1 }
                valueEnd = index
            }
            if image, firstImage == nil, lowercased(html, nameStart..<nameEnd) == "src" {
                var value = HTMLTextScanner(
                    decoding: UnsafeBufferPointer(rebasing: html[valueStart..<valueEnd]))
                firstImage = String(decoding: value.takeText(), as: UTF8.self)
            }
        }
        return (count + 1, false)
    }

    /// Only the references of an attribute value decoded (no markup in it).
    private init(decoding value: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while index < value.count {
            if value[index] == UInt8(ascii: "&") {
                index = reference(value, at: index, keeping: true)
            } else {
                text.append(value[index])
                index += 1
            }
        }
    }

    private mutating func takeText() -> [UInt8] {
        defer { text = [] }
        return text
    }

    /// The index after the next `>` from `start` (the end of the input when there is none).
    private func skipTag(_ html: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        firstIndex(of: UInt8(ascii: ">"), in: html, from: start).map { $0 + 1 } ?? html.count
    }

    /// The index of the next `</name` (any case) from `start`.
    private func findEndTag(_ html: UnsafeBufferPointer<UInt8>, _ name: String, from start: Int) -> Int? {
        let nameBytes = Array(name.utf8)
        var index = start
        while let open = firstIndex(of: UInt8(ascii: "<"), in: html, from: index) {
            let nameStart = open + 2
            if nameStart + nameBytes.count <= html.count, html[open + 1] == UInt8(ascii: "/"),
                zip(nameBytes, html[nameStart..<(nameStart + nameBytes.count)]).allSatisfy({ $0 == $1 | 0x20 }
                )
            {
                return open
            }
            index = open + 1
        }
        return nil
    }

    // MARK: References

    /// Reads the reference at `start` (an `&`), appending what it stands for when `keep`;
    /// returns the index after it.
    private mutating func reference(_ html: UnsafeBufferPointer<UInt8>, at start: Int, keeping keep: Bool)
        -> Int
    {
        let count = html.count
        var index = start + 1
        if index < count, html[index] == UInt8(ascii: "#") {
            index += 1
            let hex = index < count && (html[index] | 0x20) == UInt8(ascii: "x")
            if hex { index += 1 }
            let digitsStart = index
            var value: UInt32 = 0
            while index < count, let digit = digitValue(html[index], hex: hex) {
                value = min(value &* (hex ? 16 : 10) &+ digit, 0x11_0000)
                index += 1
            }
            guard index > digitsStart else {
                if keep { text.append(contentsOf: html[start..<index]) }
                return index
            }
            if index < count, html[index] == UInt8(ascii: ";") { index += 1 }
            if keep, isXMLChar(value), let scalar = Unicode.Scalar(value) {
                UTF8.encode(scalar) { text.append($0) }
            }
            return index
        }
        guard index < count, isASCIILetter(html[index]) || html[index] == UInt8(ascii: "_") else {
            if keep { text.append(UInt8(ascii: "&")) }
            return start + 1
        }
        while index < count, index - start <= 32, isNameByte(html[index]) { index += 1 }
        guard index < count, html[index] == UInt8(ascii: ";") else {
            if keep { text.append(contentsOf: html[start..<index]) }
            return index
        }
        let entity = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: index - start) { name in
            _ = name.initialize(from: html[(start + 1)..<index])
            name[index - start - 1] = 0
            return htmlEntityLookup(name.baseAddress)
        }
        if keep {
            if let entity, let scalar = Unicode.Scalar(entity.pointee.value) {
                UTF8.encode(scalar) { text.append($0) }
            } else {
                text.append(contentsOf: html[start...index])
            }
        }
        return index + 1
    }

    /// The characters XML (and libxml2's HTML parser) allows.
    private func isXMLChar(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x1_0000...0x10_FFFF: true
        default: false
        }
    }

    private func digitValue(_ byte: UInt8, hex: Bool) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    // MARK: Bytes

    private mutating func appendText(_ byte: UInt8) {
        if hiddenOpen.isEmpty { text.append(byte) }
    }

    private mutating func appendBreak() {
        if hiddenOpen.isEmpty { text.append(UInt8(ascii: "\n")) }
    }

    private func lowercased(_ html: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { buffer in
            for (offset, byte) in html[range].enumerated() {
                buffer[offset] = isASCIILetter(byte) ? byte | 0x20 : byte
            }
            return range.count
        }
    }

    private func starts(_ html: UnsafeBufferPointer<UInt8>, _ prefix: StaticString, at index: Int) -> Bool {
        let length = prefix.utf8CodeUnitCount
        guard index + length <= html.count else { return false }
        for offset in 0..<length where html[index + offset] != prefix.utf8Start[offset] { return false }
        return true
    }

    private func find(_ html: UnsafeBufferPointer<UInt8>, _ needle: StaticString, from start: Int) -> Int? {
        var index = start
        while let candidate = firstIndex(of: needle.utf8Start.pointee, in: html, from: index) {
            if starts(html, needle, at: candidate) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private func firstIndex(of byte: UInt8, in html: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < html.count {
            if html[index] == byte { return index }
            index += 1
        }
        return nil
    }

    private func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private func isNameByte(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }
}
