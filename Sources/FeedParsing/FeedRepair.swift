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
///   written `<!DOCTYPE`.
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

        /// One phrase, e.g. `escaped 2 bare "&", closed 1 CDATA section`, or nil for none.
        var summary: String? {
            var parts: [String] = []
            if bareAmpersands > 0 { parts.append("escaped \(bareAmpersands) bare \"&\"") }
            if htmlEntities > 0 { parts.append("decoded \(htmlEntities) HTML entities") }
            if unclosedCDATA > 0 { parts.append("closed \(unclosedCDATA) unclosed CDATA section(s)") }
            if doctypes > 0 { parts.append("capitalised a lower-case <!doctype>") }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }
    }

    private static let cdataOpen = Array("<![CDATA[".utf8)
    private static let cdataClose = Array("]]>".utf8)
    private static let predefined: Set<[UInt8]> = Set(
        ["amp", "lt", "gt", "quot", "apos"].map { Array($0.utf8) })

    /// `data` repaired, or `data` itself when nothing needed repair.
    static func repair(_ data: Data) -> (data: Data, changes: Changes) {
        let input = [UInt8](data)
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 64)
        var changes = Changes()
        var lastStartTag: ArraySlice<UInt8>?
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
                    output.append(contentsOf: Array("<!DOCTYPE".utf8))
                    changes.doctypes += 1
                    index = doctype
                    continue
                }
                if let end = skipMarkup(input, at: index) {
                    output.append(contentsOf: input[index..<end])
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
            output.append(byte)
            index += 1
        }
        guard changes != Changes() else { return (data, changes) }
        return (Data(output), changes)
    }

    /// Copies the CDATA section at `start`; one with no `]]>` before the next section is closed
    /// before `</tag` (the element it opened in), if that comes before the next section too.
    private static func copyCDATA(
        _ input: [UInt8], from start: Int, after tag: ArraySlice<UInt8>?, into output: inout [UInt8],
        changes: inout Changes
    ) -> Int {
        let contentStart = start + cdataOpen.count
        let limit = find(cdataOpen, in: input, from: contentStart, before: input.count) ?? input.count
        if let close = find(cdataClose, in: input, from: contentStart, before: limit) {
            output.append(contentsOf: input[start..<(close + cdataClose.count)])
            return close + cdataClose.count
        }
        if let tag, let end = find(Array("</".utf8) + tag, in: input, from: contentStart, before: limit) {
            output.append(contentsOf: input[start..<end])
            output.append(contentsOf: cdataClose)
            changes.unclosedCDATA += 1
            return end
        }
        output.append(contentsOf: input[start..<limit])
        return limit
    }

    /// The index after a `<!doctype` at `start` spelled in anything but capitals.
    private static func misspelledDoctype(_ input: [UInt8], at start: Int) -> Int? {
        let end = start + 9
        guard end <= input.count, input[start + 1] == UInt8(ascii: "!") else { return nil }
        let word = input[(start + 2)..<end]
        guard word.elementsEqual("doctype".utf8, by: { $0 | 0x20 == $1 }), !word.elementsEqual("DOCTYPE".utf8)
        else { return nil }
        return end
    }

    /// The end of a comment or processing instruction at `start`, nil for anything else.
    private static func skipMarkup(_ input: [UInt8], at start: Int) -> Int? {
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
        _ input: [UInt8], at start: Int, into output: inout [UInt8], changes: inout Changes
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
                output.append(contentsOf: input[start...end])
                return end + 1
            }
        } else if end < input.count, isNameStart(input[end]) {
            while end < input.count, end - start < 40, isNameByte(input[end]) { end += 1 }
            if end < input.count, input[end] == UInt8(ascii: ";") {
                let name = Array(input[(start + 1)..<end])
                if !predefined.contains(name), let code = htmlEntity(name) {
                    output.append(contentsOf: Array("&#\(code);".utf8))
                    changes.htmlEntities += 1
                } else {
                    // Predefined, or unknown: libxml2 reports and drops an unknown one.
                    output.append(contentsOf: input[start...end])
                }
                return end + 1
            }
        }
        output.append(contentsOf: Array("&amp;".utf8))
        changes.bareAmpersands += 1
        return start + 1
    }

    /// The code point of an HTML 4 entity name, from libxml2's HTML table.
    private static func htmlEntity(_ name: [UInt8]) -> UInt32? {
        let entry = (name + [0]).withUnsafeBufferPointer { htmlEntityLookup($0.baseAddress) }
        return entry.map { UInt32($0.pointee.value) }
    }

    private static func starts(_ input: [UInt8], _ prefix: [UInt8], at index: Int) -> Bool {
        index + prefix.count <= input.count && input[index..<(index + prefix.count)].elementsEqual(prefix)
    }

    /// The first index of `needle` in `input[from..<before]`.
    private static func find(_ needle: [UInt8], in input: [UInt8], from: Int, before: Int) -> Int? {
        guard let first = needle.first, before - from >= needle.count else { return nil }
        var index = from
        while index + needle.count <= before {
            if input[index] == first, starts(input, needle, at: index) { return index }
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
