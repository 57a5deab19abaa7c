import Foundation
import Images
import TestSupport
import Testing

/// Every libvips call here runs off Swift's pool (`made`): a resize blocks its thread for
/// milliseconds, and the suites running beside this one need the pool's few threads. Serialized,
/// so the suite takes one core, not all of them, from the live-server suites beside it.
@Suite("Thumbnailer", .serialized) struct ThumbnailerTests {
    let thumbnailer = Thumbnailer()

    /// The thumbnail of `original`, or the error, made on a thread of its own.
    func made(_ original: [UInt8], side: Int, format: ThumbnailFormat) async throws -> Result<
        Thumbnail, ImageError
    > {
        let thumbnailer = thumbnailer
        return try await RawConnection.offPool {
            Result { () throws(ImageError) in
                try thumbnailer.thumbnail(of: original, side: side, format: format)
            }
        }
    }

    /// The header of encoded bytes, read back through libvips.
    func header(_ bytes: [UInt8]) throws -> ImageHeader {
        try bytes.withUnsafeBytes { try ImageHeader.read($0) }
    }

    func pixel(_ bytes: [UInt8], _ x: Int, _ y: Int) throws -> Double {
        try #require(PixelProbe.value(of: bytes, x: x, y: y))
    }

    @Test("libvips starts with its HEIF module (AVIF in and out)")
    func started() async throws {
        let state = try await RawConnection.offPool { Thumbnailer.start() }
        #expect(state.started && state.heif)
    }

    @Test(
        "each format, each width, each output encoding",
        arguments: ["photo.jpg", "photo.png", "photo.webp", "photo.avif"])
    func formats(name: String) async throws {
        let original = try await ImageFixtures.bytes(name)
        for side in [96, 160, 240, 320, 480] {
            // AVIF is not served (README, Pictures): checked at the two smallest widths only,
            // as its encoder costs several times WebP's at 480 px.
            for format in ThumbnailFormat.allCases where format != .avif || side <= 160 {
                let thumbnail = try await made(original, side: side, format: format).get()
                #expect(thumbnail.width == side && thumbnail.height == side, "\(name) \(side) \(format)")
                let decoded = try header(thumbnail.bytes)
                #expect(decoded.width == side && decoded.height == side)
                let expected: ImageHeader.Kind =
                    switch format {
                    case .webp: .webp
                    case .jpeg: .jpeg
                    case .avif: .heif
                    }
                #expect(decoded.kind == expected)
            }
        }
    }

    @Test("never enlarges: a 100x80 original at 480 stays within 100x80")
    func neverEnlarges() async throws {
        let thumbnail = try await made(
            try await ImageFixtures.bytes("animated.gif"), side: 480, format: .jpeg
        ).get()
        #expect(thumbnail.width <= 100 && thumbnail.height <= 80)
    }

    @Test("EXIF orientation is applied and the metadata is gone")
    func exifRotation() async throws {
        let upright = try await ImageFixtures.bytes("halves.jpg")
        let rotated = try await ImageFixtures.bytes("rotated.jpg")
        for format in ThumbnailFormat.allCases {
            // Stored: black left half, white right half. Orientation 6 shows it black on top.
            let plain = try await made(upright, side: 160, format: format).get().bytes
            #expect(try pixel(plain, 20, 80) < 60, "\(format)")
            #expect(try pixel(plain, 140, 80) > 200, "\(format)")
            let turned = try await made(rotated, side: 160, format: format).get().bytes
            #expect(try pixel(turned, 80, 20) < 60, "\(format)")
            #expect(try pixel(turned, 80, 140) > 200, "\(format)")
            #expect(!Self.contains(turned, "Planted Artist"), "\(format) kept the EXIF Artist tag")
        }
        #expect(Self.contains(rotated, "Planted Artist"), "the fixture carries the tag")
    }

    @Test("a WebP thumbnail is image data only: no EXIF or XMP chunk, and VP8X announces none")
    func webpWithoutMetadata() async throws {
        // libvips 8.14's webpsave writes an EXIF chunk (orientation, resolution, an Exif IFD) it
        // builds from the image's header fields, whatever "strip" says and even with every
        // metadata field removed; the JPEG and AVIF savers honour "strip".
        for name in ["rotated.jpg", "photo.jpg", "photo.png", "photo.webp"] {
            let thumbnail = try await made(try await ImageFixtures.bytes(name), side: 160, format: .webp)
                .get()
            let container = try #require(RIFFChunks(thumbnail.bytes), "\(name): not a RIFF WEBP file")
            #expect(
                !container.codes.contains { ["EXIF", "XMP ", "ICCP"].contains($0) },
                "\(name): chunks \(container.codes)")
            let metadataFlags = RIFFChunks.exifFlag | RIFFChunks.xmpFlag | RIFFChunks.iccFlag
            #expect((container.extendedFlags ?? 0) & metadataFlags == 0, "\(name): VP8X flags")
            #expect(container.codes.contains { $0 == "VP8 " || $0 == "VP8L" }, "\(name): no image chunk")
            // Still a picture libvips reads back at its size.
            #expect(try header(thumbnail.bytes).width == 160)
        }
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in
            bytes[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    @Test("an animated GIF gives its first frame")
    func animatedGIF() async throws {
        let original = try await ImageFixtures.bytes("animated.gif")
        let gifHeader = try header(original)
        #expect(gifHeader.kind == .gif && gifHeader.pages == 3)
        let thumbnail = try await made(original, side: 96, format: .webp).get()
        #expect(try header(thumbnail.bytes).pages == 1)
        // Cropped to the box, never enlarged: 96 wide (of 100), 80 high (all there is).
        #expect(thumbnail.width == 96 && thumbnail.height == 80)
        // The first frame is red: the first band is high.
        #expect(try pixel(thumbnail.bytes, 40, 40) > 200)
    }

    @Test("SVG, HTML and empty input are not images", arguments: ["drawing.svg", "page.html"])
    func refused(name: String) async throws {
        let original = try await ImageFixtures.bytes(name)
        #expect(try await made(original, side: 160, format: .webp) == .failure(.unsupportedFormat))
        #expect(try await made([], side: 160, format: .webp) == .failure(.unsupportedFormat))
    }

    @Test("a 60000x60000 header is refused before decoding")
    func bomb() async throws {
        let original = try await ImageFixtures.bytes("bomb.png")
        let result = try await made(original, side: 160, format: .webp)
        #expect(result == .failure(.tooManyPixels(width: 60000, height: 60000)))
    }

    @Test("a truncated JPEG is an error, not a grey picture")
    func truncated() async throws {
        let result = try await made(try await ImageFixtures.bytes("truncated.jpg"), side: 160, format: .jpeg)
        guard case .failure(.undecodable) = result else {
            Issue.record("expected undecodable, got \(result)")
            return
        }
    }
}
