/// Percent-encoding for what the owner's pages put into URLs they build (`next`).
enum FormEncoding {
    /// Bytes left as they are in a query value: RFC 3986's unreserved characters.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// `text` as a query name or value: everything but unreserved characters escaped.
    static func encode(_ text: String) -> String {
        encode(text) { isUnreserved($0) }
    }

    /// A decoded path as a path again: `/` and the sub-delimiters a path keeps stay.
    static func encodePath(_ path: String) -> String {
        encode(path) { isUnreserved($0) || "/:@!$&'()*+,;=".utf8.contains($0) }
    }

    private static func encode(_ text: String, keeping: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeping(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
