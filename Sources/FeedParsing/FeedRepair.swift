import CLibXML2
import Foundation

/// Byte-level repairs made before libxml2 sees a feed, for the ill-formed documents that the
/// reference readers show faithfully but libxml2's recovery would damage:
///
/// - a bare `&` (`?a=1&b=2`, `AT&T`), which libxml2 drops together with the name after it,
///   becomes `&amp;`;
/// - an HTML entity (`&nbsp;`, `&eacute;`), which XML does not define and libxml2 drops, becomes
///   its numeric reference;
/// - an unclosed `<![CDATA[`, after which libxml2 drops the rest of the document, is closed
///   before the end tag of the element it sits in;
/// - a lower-case `<!doctype`, which XML does not know and libxml2 cannot get past, is
///   written `<!DOCTYPE`;
/// - a hexadecimal reference with a capital X (`&#X41;`), which XML does not allow and libxml2
///   drops, leaving `X41;`, is written `&#x41;`.
///
/// CDATA sections, comments and processing instructions are copied as they are. One pass, each
/// byte looked at a bounded number of times: searches never run past the next CDATA section.
enum FeedRepair {
    /// What a repair changed, counted.
    struct Changes: Equatable {
        var bareAmpersands = 0
        var htmlEntities = 0
        var unclosedCDATA = 0
        var doctypes = 0
        var upperHexReferences = 0

        /// One phrase, e.g. `escaped 2 bare "&", closed 1 CDATA section`, or nil for none.
        var summary: String? {
            var parts: [String] = []
            if bareAmpersands > 0 { parts.append("escaped \(bareAmpersands) bare \"&\"") }
            if htmlEntities > 0 { parts.append("decoded \(htmlEntities) HTML entities") }
            if unclosedCDATA > 0 { parts.append("closed \(unclosedCDATA) unclosed CDATA section(s)") }
            if doctypes > 0 { parts.append("capitalised a lower-case <!doctype>") }
            if upperHexReferences > 0 { parts.append("lower-cased \(upperHexReferences) \"&#X\" references") }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }
    }

    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let cdataClose = Array("]]>".utf8)
    private static let predefined: Set<[UInt8]> = Set(
        ["amp", "lt", "gt", "quot", "apos"].map { Array($0.utf8) })

    /// The repaired document, written only from the first change on: each unchanged stretch
    /// is copied in one piece when the next change comes, so a document that needs no repair
    /// (most of them) costs a scan and no copy.
    private struct Output {
        var bytes: [UInt8] = []
        /// How much of the input `bytes` covers.
        var copied = 0

        /// Writes `replacement` in place of `input[range]`.
        mutating func replace(
            _ range: Range<Int>, in input: UnsafeBufferPointer<UInt8>, with replacement: [UInt8]
        ) {
            if bytes.isEmpty { bytes.reserveCapacity(input.count + input.count / 64) }
            bytes.append(contentsOf: input[copied..<range.lowerBound])
            bytes.append(contentsOf: replacement)
            copied = range.upperBound
        }
    }

    /// `data` repaired, or `data` itself when nothing needed repair.
    static func repair(_ data: Data) -> (data: Data, changes: Changes) {
        data.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            var output = Output()
            let changes = repair(input, into: &output)
            guard changes != Changes() else { return (data, changes) }
            output.bytes.append(contentsOf: input[output.copied...])
            return (Data(output.bytes), changes)
        }
    }

    private static func repair(_ input: UnsafeBufferPointer<UInt8>, into output: inout Output) -> Changes {
        var changes = Changes()
        var lastStartTag: Slice<UnsafeBufferPointer<UInt8>>?
        var index = 0
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "<") {
                if starts(input, cdataOpen, at: index) {
                    index = copyCDATA(
                        input, from: index, after: lastStartTag, into: &output, changes: &changes)
                    continue
                }
                if let doctype = misspelledDoctype(input, at: index) {
                    output.replace(index..<doctype, in: input, with: Array("<!DOCTYPE".utf8))
                    changes.doctypes += 1
                    index = doctype
                    continue
                }
                if let end = skipMarkup(input, at: index) {
                    index = end
                    continue
                }
                if index + 1 < input.count, isNameStart(input[index + 1]) {
                    var end = index + 1
                    while end < input.count, isNameByte(input[end]) { end += 1 }
                    lastStartTag = input[(index + 1)..<end]
                }
            } else if byte == UInt8(ascii: "&") {
                index = copyReference(input, at: index, into: &output, changes: &changes)
                continue
            }
            index += 1
        }
        return changes
    }

    /// Copies the CDATA section at `start`; one with no `]]>` before the next section is closed
    /// before `</tag` (the element it opened in), if that comes before the next section too.
    private static func copyCDATA(
        _ input: UnsafeBufferPointer<UInt8>, from start: Int, after tag: Slice<UnsafeBufferPointer<UInt8>>?,
        into output: inout Output,
        changes: inout Changes
    ) -> Int {
        let contentStart = start + cdataOpen.count
        let limit = find(cdataOpen, in: input, from: contentStart, before: input.count) ?? input.count
        if let close = find(cdataClose, in: input, from: contentStart, before: limit) {
            return close + cdataClose.count
        }
        if let tag, let end = find(Array("</".utf8) + tag, in: input, from: contentStart, before: limit) {
            output.replace(end..<end, in: input, with: cdataClose)
            changes.unclosedCDATA += 1
            return end
        }
        return limit
    }

    /// The index after a `<!doctype` at `start` spelled in anything but capitals.
    private static func misspelledDoctype(_ input: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let end = start + 9
        guard end <= input.count, input[start + 1] == UInt8(ascii: "!") else { return nil }
        let word = input[(start + 2)..<end]
        guard word.elementsEqual("doctype".utf8, by: { $0 | 0x20 == $1 }), !word.elementsEqual("DOCTYPE".utf8)
        else { return nil }
        return end
    }

    /// The end of a comment or processing instruction at `start`, nil for anything else.
    private static func skipMarkup(_ input: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        let (opening, closing) =
            starts(input, Array("<!--".utf8), at: start)
            ? ("<!--", "-->") : starts(input, Array("<?".utf8), at: start) ? ("<?", "?>") : ("", "")
        guard !opening.isEmpty else { return nil }
        let close = find(
            Array(closing.utf8), in: input, from: start + opening.utf8.count, before: input.count)
        return close.map { $0 + closing.utf8.count } ?? input.count
    }

    /// Copies the reference at `start` (an `&`), repaired if needed; returns the index after it.
    private static func copyReference(
        _ input: UnsafeBufferPointer<UInt8>, at start: Int, into output: inout Output, changes: inout Changes
    ) -> Int {
        var end = start + 1
        if end < input.count, input[end] == UInt8(ascii: "#") {
            end += 1
            let hex =
                end < input.count && (input[end] == UInt8(ascii: "x") || input[end] == UInt8(ascii: "X"))
            if hex { end += 1 }
            let digitsStart = end
            while end < input.count, end - digitsStart < 8, isDigit(input[end], hex: hex) { end += 1 }
            if end > digitsStart, end < input.count, input[end] == UInt8(ascii: ";") {
                if hex, input[digitsStart - 1] == UInt8(ascii: "X") {
                    // XML writes hexadecimal references with a lower-case x only.
                    output.replace(start..<digitsStart, in: input, with: Array("&#x".utf8))
                    changes.upperHexReferences += 1
                }
                return end + 1
            }
        } else if end < input.count, isNameStart(input[end]) {
            while end < input.count, end - start < 40, isNameByte(input[end]) { end += 1 }
            if end < input.count, input[end] == UInt8(ascii: ";") {
                let name = Array(input[(start + 1)..<end])
                // Predefined ones stay, and unknown ones too: libxml2 reports and drops those.
                if !predefined.contains(name), let code = htmlEntity(name) {
                    output.replace(start..<(end + 1), in: input, with: Array("&#\(code);".utf8))
                    changes.htmlEntities += 1
                }
                return end + 1
            }
        }
        output.replace(start..<(start + 1), in: input, with: Array("&amp;".utf8))
        changes.bareAmpersands += 1
        return start + 1
    }

    /// The code point of an HTML 4 entity name, from libxml2's HTML table.
    private static func htmlEntity(_ name: [UInt8]) -> UInt32? {
        let entry = (name + [0]).withUnsafeBufferPointer { htmlEntityLookup($0.baseAddress) }
        return entry.map { UInt32($0.pointee.value) }
    }

    private static func starts(_ input: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8], at index: Int) -> Bool
    {
        guard index + prefix.count <= input.count else { return false }
        for offset in prefix.indices where input[index + offset] != prefix[offset] { return false }
        return true
    }

    /// The first index of `needle` in `input[from..<before]`, jumping from one occurrence of its
    /// first byte to the next with memchr.
    private static func find(_ needle: [UInt8], in input: UnsafeBufferPointer<UInt8>, from: Int, before: Int)
        -> Int?
    {
        guard let first = needle.first, before - from >= needle.count, let base = input.baseAddress else {
            return nil
        }
        var index = from
        while index + needle.count <= before,
            let found = memchr(base + index, Int32(first), before - needle.count + 1 - index)
        {
            index = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
            if starts(input, needle, at: index) { return index }
            index += 1
        }
        return nil
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x3A
    }

    private static func isDigit(_ byte: UInt8, hex: Bool) -> Bool {
        (byte >= 0x30 && byte <= 0x39)
            || (hex && ((byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)))
    }
}
