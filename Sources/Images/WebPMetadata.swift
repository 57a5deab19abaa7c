/// Removes the metadata chunks from an encoded WebP file.
///
/// libvips 8.14's webpsave ignores "strip" (libvips#3340) and, even for an image with every
/// metadata field removed, writes an EXIF chunk it builds from the header (orientation,
/// resolution and an Exif IFD: 186 bytes on every thumbnail). JPEG and AVIF honour "strip".
/// WebP is a RIFF container (`RIFF <size> WEBP` and chunks of a four-character code, a
/// little-endian size and the data padded to an even length), so the chunks are dropped here:
/// `EXIF`, `XMP ` and `ICCP`, their flags cleared in `VP8X`, the RIFF size written again.
enum WebPMetadata {
    /// The chunks that carry metadata rather than the picture.
    static let metadataChunks: Set<String> = ["EXIF", "XMP ", "ICCP"]
    /// `VP8X` flags announcing those chunks: ICC profile, EXIF, XMP (WebP container spec).
    static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// `webp` without its metadata chunks; the bytes unchanged when they are not a well-formed
    /// RIFF WEBP file (the saver's output always is) or carry no metadata.
    static func removing(from webp: [UInt8]) -> [UInt8] {
        guard let chunks = chunks(of: webp) else { return webp }
        let kept = chunks.filter { !metadataChunks.contains(code(webp, at: $0.lowerBound)) }
        guard kept.count < chunks.count else { return webp }
        var output: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        for chunk in kept {
            let start = output.count
            output += webp[chunk]
            if code(webp, at: chunk.lowerBound) == "VP8X", chunk.count > 8 {
                output[start + 8] &= ~metadataFlags
            }
        }
        let size = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(index))) }
        return output
    }

    /// The byte ranges of the chunks (header, data and padding), nil when `webp` is not a
    /// well-formed RIFF WEBP file.
    static func chunks(of webp: [UInt8]) -> [Range<Int>]? {
        guard webp.count >= 12, webp[0..<4].elementsEqual("RIFF".utf8),
            webp[8..<12].elementsEqual("WEBP".utf8),
            littleEndian(webp, at: 4) + 8 == webp.count
        else { return nil }
        var ranges: [Range<Int>] = []
        var offset = 12
        while offset < webp.count {
            guard offset + 8 <= webp.count else { return nil }
            let size = littleEndian(webp, at: offset + 4)
            let end = min(webp.count, offset + 8 + size + size % 2)
            guard offset + 8 + size <= webp.count else { return nil }
            ranges.append(offset..<end)
            offset = end
        }
        return ranges
    }

    private static func code(_ bytes: [UInt8], at offset: Int) -> String {
        String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> Int {
        (0..<4).reduce(0) { value, index in value | Int(bytes[offset + index]) << (8 * index) }
    }
}
