/// The chunks of a WebP file read from its RIFF container, for tests that look at what a
/// thumbnail carries besides its pixels: `RIFF <size> WEBP`, then chunks of a four-character
/// code, a little-endian size and the data padded to an even length.
struct RIFFChunks {
    /// One chunk: its code (`VP8 `, `VP8X`, `EXIF`, `XMP `, `ICCP`, …) and its data.
    struct Chunk {
        let code: String
        let data: ArraySlice<UInt8>
    }

    /// The VP8X flags that announce metadata chunks (WebP container specification).
    static let iccFlag: UInt8 = 0x20
    static let exifFlag: UInt8 = 0x08
    static let xmpFlag: UInt8 = 0x04

    let chunks: [Chunk]

    /// Parses `bytes`; nil when they are not a well-formed RIFF WEBP file whose size field
    /// matches its length.
    init?(_ bytes: [UInt8]) {
        func word(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8),
            bytes[8..<12].elementsEqual("WEBP".utf8), word(4) + 8 == bytes.count
        else { return nil }
        var chunks: [Chunk] = []
        var offset = 12
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else { return nil }
            let size = word(offset + 4)
            let end = offset + 8 + size
            guard end <= bytes.count else { return nil }
            let code = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            chunks.append(Chunk(code: code, data: bytes[(offset + 8)..<end]))
            offset = end + size % 2
        }
        self.chunks = chunks
    }

    /// The codes in file order.
    var codes: [String] { chunks.map(\.code) }

    /// The flags byte of the VP8X chunk, nil in a simple (VP8 or VP8L only) file.
    var extendedFlags: UInt8? { chunks.first { $0.code == "VP8X" }?.data.first }
}
