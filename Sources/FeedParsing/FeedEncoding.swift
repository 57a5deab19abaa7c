import EncodingDetection
import Foundation

/// Which encoding an XML feed is read in, before any parsing: what the document declares (a
/// byte order mark, its prolog's `encoding=`) wins, then `Content-Type`'s `charset`, then UTF-8
/// when the bytes are UTF-8. Only a document that says nothing and is not UTF-8 is detected
/// (``LegacyDecoder``: uchardet, else Windows-1252) and converted to UTF-8 here, so the
/// byte-level repairs and libxml2 then see UTF-8 like any other.
enum FeedEncoding {
    /// `data` as the parser is to read it, and a note (for the recovery summary) when it was
    /// converted from a detected or assumed encoding.
    static func readable(_ data: Data, charset: String?) -> (data: Data, note: String?) {
        guard charset?.isEmpty != false, !isDeclared(in: data) else { return (data, nil) }
        let decoded: DecodedText? = data.withUnsafeBytes { bytes in
            UTF8Validation.isValid(bytes) ? nil : LegacyDecoder.decode(bytes)
        }
        guard let decoded else { return (data, nil) }
        let how = decoded.detected ? "detected" : "detection unsure"
        return (
            Data(decoded.utf8), "no encoding declared and not UTF-8: read as \(decoded.encoding) (\(how))"
        )
    }

    /// True when the document names its encoding: a byte order mark, or `encoding=` in an XML
    /// declaration.
    static func isDeclared(in data: Data) -> Bool {
        let head = data.prefix(256)
        if head.starts(with: [0xEF, 0xBB, 0xBF]) || head.starts(with: [0xFE, 0xFF])
            || head.starts(with: [0xFF, 0xFE])
        {
            return true
        }
        let prolog = String(decoding: head, as: UTF8.self)
        guard prolog.hasPrefix("<?xml"), let end = prolog.range(of: "?>") else { return false }
        return prolog[..<end.lowerBound].contains("encoding")
    }
}
