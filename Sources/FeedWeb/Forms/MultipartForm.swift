import Foundation

/// A small, bounded reader of `multipart/form-data` (RFC 7578): what a browser sends for a form
/// with a file input, here the Feeds page's OPML upload.
///
/// Only what forms send is read: each part's `Content-Disposition: form-data; name=…;
/// filename=…`, its body as bytes. Bounded in every direction, since the body is the client's:
/// at most ``maxParts`` parts, ``maxHeaderBytes`` of headers each, `maxPartBytes` per body (the
/// whole body is already bounded by the server's `--max-body`).
enum MultipartForm {
    /// One part of the form.
    struct Part: Sendable, Equatable {
        /// The field's name.
        var name: String
        /// The file's name as the browser gave it (nil for a text field).
        var filename: String?
        /// The part's bytes.
        var body: [UInt8]
    }

    /// Why a body was refused.
    enum Failure: Error, Equatable {
        /// Not a multipart body with this boundary, or a part without a usable disposition.
        case malformed
        /// A part is larger than allowed, or there are too many parts.
        case tooLarge
    }

    /// Parts in one form: the Feeds page's import sends three.
    static let maxParts = 16
    /// Header bytes per part.
    static let maxHeaderBytes = 4096

    /// The `boundary` parameter of a `multipart/form-data` content type (quoted or not), when it
    /// is a valid one (1 to 70 characters).
    static func boundary(contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary"
            else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The parts of `body`, in order.
    static func parse(_ body: [UInt8], boundary: String, maxPartBytes: Int) throws(Failure) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        // The first delimiter may follow a preamble (ignored); later ones follow a CRLF.
        guard var cursor = find(delimiter, in: body, from: 0) else { throw .malformed }
        guard cursor == 0 || (cursor >= 2 && body[cursor - 2] == 13 && body[cursor - 1] == 10) else {
            throw .malformed
        }
        let separator = [13, 10] + delimiter
        var parts: [Part] = []
        while true {
            cursor += delimiter.count
            // `--` after a delimiter closes the form; else the line ends and a part starts.
            if body.count >= cursor + 2, body[cursor] == 45, body[cursor + 1] == 45 { return parts }
            cursor = skipLineEnd(body, from: cursor)
            guard cursor <= body.count, body[cursor - 2] == 13, body[cursor - 1] == 10 else {
                throw .malformed
            }
            guard parts.count < maxParts else { throw .tooLarge }
            // Every part of a form has headers (its disposition at least), ended by a blank line.
            guard
                let headersEnd = find(
                    [13, 10, 13, 10], in: body, from: cursor, limit: cursor + maxHeaderBytes)
            else { throw body.count > cursor + maxHeaderBytes ? .tooLarge : .malformed }
            let headerBytes = body[cursor..<headersEnd]
            let bodyStart = headersEnd + 4
            guard let next = find(separator, in: body, from: bodyStart) else { throw .malformed }
            guard next - bodyStart <= maxPartBytes else { throw .tooLarge }
            guard let text = String(validating: headerBytes, as: UTF8.self),
                let disposition = disposition(headers: text)
            else { throw .malformed }
            parts.append(
                Part(
                    name: disposition.name, filename: disposition.filename,
                    body: Array(body[bodyStart..<next])))
            cursor = next + 2
        }
    }

    /// Past optional transport padding (spaces, tabs) and the CRLF after a delimiter.
    private static func skipLineEnd(_ body: [UInt8], from start: Int) -> Int {
        var index = start
        while index < body.count, body[index] == 32 || body[index] == 9 { index += 1 }
        return index + 2
    }

    /// The `name` and `filename` of a part's `Content-Disposition: form-data` header.
    static func disposition(headers: String) -> (name: String, filename: String?)? {
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":"),
                line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "content-disposition"
            else { continue }
            let parameters = parameters(line[line.index(after: colon)...])
            guard parameters.first?.name == "form-data",
                let name = parameters.first(where: { $0.name == "name" })?.value
            else { return nil }
            return (name, parameters.first(where: { $0.name == "filename" })?.value)
        }
        return nil
    }

    /// `form-data; name="a;b"; filename=x.opml` as `(name, value)` pairs, the first being the
    /// disposition type with no value. Quoted values may hold `;` and `\"`.
    private static func parameters(_ text: Substring) -> [(name: String, value: String?)] {
        var result: [(name: String, value: String?)] = []
        var index = text.startIndex
        func skipSpaces() {
            while index < text.endIndex, text[index] == " " || text[index] == "\t" {
                index = text.index(after: index)
            }
        }
        while index < text.endIndex {
            skipSpaces()
            var name = ""
            while index < text.endIndex, text[index] != "=", text[index] != ";" {
                name.append(text[index])
                index = text.index(after: index)
            }
            var value: String?
            if index < text.endIndex, text[index] == "=" {
                index = text.index(after: index)
                skipSpaces()
                var collected = ""
                if index < text.endIndex, text[index] == "\"" {
                    index = text.index(after: index)
                    while index < text.endIndex, text[index] != "\"" {
                        if text[index] == "\\", text.index(after: index) < text.endIndex {
                            index = text.index(after: index)
                        }
                        collected.append(text[index])
                        index = text.index(after: index)
                    }
                    if index < text.endIndex { index = text.index(after: index) }
                }
                while index < text.endIndex, text[index] != ";" {
                    collected.append(text[index])
                    index = text.index(after: index)
                }
                value = collected.trimmingCharacters(in: .whitespaces)
            }
            result.append((name.trimmingCharacters(in: .whitespaces).lowercased(), value))
            if index < text.endIndex { index = text.index(after: index) }
        }
        return result
    }

    /// Where `needle` first starts in `haystack` at or after `start` (and before `limit`, when
    /// given: the match must end by then).
    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int, limit: Int = .max)
        -> Int?
    {
        let end = min(haystack.count, limit) - needle.count
        guard let first = needle.first, start <= end else { return nil }
        var index = start
        while index <= end {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}
