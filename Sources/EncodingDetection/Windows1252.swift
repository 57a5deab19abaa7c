/// Windows-1252 decoded by table: the fallback when detection is unsure. Every byte decodes
/// (the five bytes the code page leaves undefined become the C1 controls of the same value, as
/// in browsers), so the fallback never produces replacement characters.
enum Windows1252 {
    /// 0x80…0x9F; the rest of the code page is Latin-1, that is, the byte's own code point.
    private static let high: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
        0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// `bytes` as UTF-8.
    static func utf8(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                output.append(byte)
                continue
            }
            let value = (0x80...0x9F).contains(byte) ? UInt32(high[Int(byte - 0x80)]) : UInt32(byte)
            UTF8.encode(Unicode.Scalar(value)!) { output.append($0) }
        }
        return output
    }
}
