import Testing

@testable import Images

/// The RIFF rewrite on crafted containers: every metadata chunk WebP defines (EXIF, XMP, ICC
/// profile) goes with its VP8X flag, odd-sized chunks keep their padding, and anything that is
/// not a well-formed RIFF WEBP file is left as it is.
@Suite("WebP metadata removal") struct WebPMetadataTests {
    /// `value` as four little-endian bytes, as RIFF writes sizes.
    static func littleEndian(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// A chunk: code, size, data, a pad byte when the size is odd.
    static func chunk(_ code: String, _ data: [UInt8]) -> [UInt8] {
        Array(code.utf8) + littleEndian(data.count) + data + (data.count % 2 == 1 ? [0] : [])
    }

    static func riff(_ chunks: [[UInt8]]) -> [UInt8] {
        let body = Array("WEBP".utf8) + chunks.flatMap { $0 }
        return Array("RIFF".utf8) + littleEndian(body.count) + body
    }

    /// VP8X with the ICC (0x20), alpha (0x10), EXIF (0x08) and XMP (0x04) flags, 1x1 canvas.
    static let extended = chunk("VP8X", [0x3C, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    static let image = chunk("VP8 ", [1, 2, 3, 4, 5])  // odd: padded

    @Test("EXIF, XMP and ICCP chunks go, their flags are cleared, the rest stays byte for byte")
    func removesEveryMetadataChunk() throws {
        let original = Self.riff([
            Self.extended, Self.chunk("ICCP", [9, 9, 9]), Self.chunk("ALPH", [7, 7]), Self.image,
            Self.chunk("EXIF", Array("Exif\0\0MM".utf8)), Self.chunk("XMP ", Array("<x:xmpmeta/>".utf8)),
        ])
        let stripped = WebPMetadata.removing(from: original)
        let chunks = try #require(RIFFChunks(stripped))
        #expect(chunks.codes == ["VP8X", "ALPH", "VP8 "])
        // Alpha stays announced; the three metadata flags are gone.
        #expect(chunks.extendedFlags == 0x10)
        #expect(
            stripped
                == Self.riff([
                    Self.chunk("VP8X", [0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0]), Self.chunk("ALPH", [7, 7]),
                    Self.image,
                ]))
    }

    @Test("a file without metadata, and bytes that are not RIFF WEBP, come back unchanged")
    func leavesOthersAlone() {
        let simple = Self.riff([Self.image])
        #expect(WebPMetadata.removing(from: simple) == simple)
        let truncated = Array(Self.riff([Self.image, Self.chunk("EXIF", [1, 2, 3, 4])]).dropLast(3))
        #expect(WebPMetadata.removing(from: truncated) == truncated)
        let notWebP = Array("RIFF\u{4}\0\0\0WAVE".utf8)
        #expect(WebPMetadata.removing(from: notWebP) == notWebP)
    }
}
