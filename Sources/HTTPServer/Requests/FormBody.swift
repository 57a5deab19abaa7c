import Foundation

/// The fields of an HTML form's body, as a browser posts it: `application/x-www-form-urlencoded`
/// (`a=1&b=x+y`), or the small text fields of `multipart/form-data` (a form with a file input),
/// files left out. What handlers and the access gate read, e.g. the `csrf` field.
public struct FormBody: Sendable {
    /// The text fields in body order.
    public let fields: [(name: String, value: String)]

    /// The longest text field kept from a multipart body; longer ones are files, not fields.
    public static let maxMultipartField = 4096

    /// The form fields of `request`'s body, by its `Content-Type`; empty for any other type,
    /// a body that is not UTF-8 or a malformed one.
    public init(_ request: Request) {
        let type = request.headers["Content-Type"]?.lowercased() ?? ""
        if type.hasPrefix("application/x-www-form-urlencoded") {
            let text = request.bodyText ?? ""
            fields = (try? Request.decodeQuery(text[...])) ?? []
        } else if type.hasPrefix("multipart/form-data"),
            let boundary = Self.boundary(request.headers["Content-Type"])
        {
            fields = Self.multipartFields(request.body, boundary: boundary)
        } else {
            fields = []
        }
    }

    /// The first value of field `name`, or nil.
    public func value(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The `boundary` parameter of a multipart `Content-Type` (quoted or not).
    static func boundary(_ contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary"
            else {
                continue
            }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    /// The parts without a `filename` whose value is short UTF-8 text (RFC 7578).
    static func multipartFields(_ body: [UInt8], boundary: String) -> [(name: String, value: String)] {
        let delimiter = Array("\r\n--\(boundary)".utf8)
        // The first delimiter may open the body without the CRLF before it.
        var parts: [ArraySlice<UInt8>] = []
        var rest: ArraySlice<UInt8> = ([13, 10] + body)[...]
        while let start = Self.find(delimiter, in: rest) {
            rest = rest[(start + delimiter.count)...]
            guard let end = Self.find(delimiter, in: rest) else { break }
            parts.append(rest[rest.startIndex..<end])
        }
        var fields: [(name: String, value: String)] = []
        for part in parts {
            // Each part: CRLF, header lines, an empty line, the value.
            guard let blank = Self.find(Array("\r\n\r\n".utf8), in: part) else { continue }
            let head = String(decoding: part[part.startIndex..<blank], as: UTF8.self)
            let value = part[(blank + 4)...]
            guard value.count <= maxMultipartField, let name = Self.fieldName(head),
                let text = String(validating: value, as: UTF8.self)
            else { continue }
            fields.append((name, text))
        }
        return fields
    }

    /// The `name` of a part's `Content-Disposition: form-data`, nil for a file part.
    private static func fieldName(_ head: String) -> String? {
        for line in head.split(whereSeparator: \.isNewline) {
            let lower = line.lowercased()
            guard lower.hasPrefix("content-disposition:") else { continue }
            if lower.contains("filename=") || lower.contains("filename*=") { return nil }
            guard let range = line.range(of: "name=\"") else { return nil }
            let after = line[range.upperBound...]
            guard let close = after.firstIndex(of: "\"") else { return nil }
            return String(after[..<close])
        }
        return nil
    }

    /// The index of the first occurrence of `needle` in `haystack`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            if haystack[index] == needle[0], haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}
