import Foundation
import Images
import TestSupport
import Testing

@Suite("Thumbnailer") struct ThumbnailerTests {
    let thumbnailer = Thumbnailer()

    /// The header of encoded output, read back through libvips.
    func header(_ thumbnail: Thumbnail) throws -> ImageHeader {
        try thumbnail.bytes.withUnsafeBytes { try ImageHeader.read($0) }
    }

    @Test(
        "each format, each width, each output encoding",
        arguments: ["photo.jpg", "photo.png", "photo.webp", "photo.avif"])
    func formats(name: String) throws {
        let original = try ImageFixtures.bytes(name)
        for side in [96, 160, 240, 320, 480] {
            for format in ThumbnailFormat.allCases {
                let thumbnail = try thumbnailer.thumbnail(of: original, side: side, format: format)
                #expect(thumbnail.width == side && thumbnail.height == side, "\(name) \(side) \(format)")
                let decoded = try header(thumbnail)
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

    @Test("libvips starts with its HEIF module (AVIF in and out)")
    func started() {
        let state = Thumbnailer.start()
        #expect(state.started && state.heif)
    }

    @Test("never enlarges: a 100x80 original at 480 stays within 100x80")
    func neverEnlarges() throws {
        let thumbnail = try thumbnailer.thumbnail(
            of: try ImageFixtures.bytes("animated.gif"), side: 480, format: .jpeg)
        #expect(thumbnail.width <= 100 && thumbnail.height <= 80)
    }

    @Test("EXIF orientation is applied and the metadata is gone")
    func exifRotation() throws {
        let upright = try ImageFixtures.bytes("halves.jpg")
        let rotated = try ImageFixtures.bytes("rotated.jpg")
        for format in ThumbnailFormat.allCases {
            // Stored: black left half, white right half. Orientation 6 shows it black on top.
            let plain = try thumbnailer.thumbnail(of: upright, side: 160, format: format).bytes
            #expect(try #require(PixelProbe.value(of: plain, x: 20, y: 80)) < 60, "\(format)")
            #expect(try #require(PixelProbe.value(of: plain, x: 140, y: 80)) > 200, "\(format)")
            let turned = try thumbnailer.thumbnail(of: rotated, side: 160, format: format).bytes
            #expect(try #require(PixelProbe.value(of: turned, x: 80, y: 20)) < 60, "\(format)")
            #expect(try #require(PixelProbe.value(of: turned, x: 80, y: 140)) > 200, "\(format)")
            #expect(!Self.contains(turned, "Planted Artist"), "\(format) kept the EXIF Artist tag")
        }
        #expect(Self.contains(rotated, "Planted Artist"), "the fixture carries the tag")
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { start in
            bytes[start..<(start + needle.count)].elementsEqual(needle)
        }
    }

    @Test("an animated GIF gives its first frame")
    func animatedGIF() throws {
        let original = try ImageFixtures.bytes("animated.gif")
        let gifHeader = try original.withUnsafeBytes { try ImageHeader.read($0) }
        #expect(gifHeader.kind == .gif && gifHeader.pages == 3)
        let thumbnail = try thumbnailer.thumbnail(of: original, side: 96, format: .webp)
        let decoded = try header(thumbnail)
        #expect(decoded.pages == 1)
        // Cropped to the box, never enlarged: 96 wide (of 100), 80 high (all there is).
        #expect(thumbnail.width == 96 && thumbnail.height == 80)
        // The first frame is red: the first band is high.
        #expect(try #require(PixelProbe.value(of: thumbnail.bytes, x: 40, y: 40)) > 200)
    }

    @Test("SVG, HTML and empty input are not images", arguments: ["drawing.svg", "page.html"])
    func refused(name: String) throws {
        #expect(throws: ImageError.unsupportedFormat) {
            try thumbnailer.thumbnail(of: try ImageFixtures.bytes(name), side: 160, format: .webp)
        }
        #expect(throws: ImageError.unsupportedFormat) {
            try thumbnailer.thumbnail(of: [], side: 160, format: .webp)
        }
    }

    @Test("a 60000x60000 header is refused before decoding")
    func bomb() throws {
        let original = try ImageFixtures.bytes("bomb.png")
        #expect(throws: ImageError.tooManyPixels(width: 60000, height: 60000)) {
            try thumbnailer.thumbnail(of: original, side: 160, format: .webp)
        }
    }

    @Test("a truncated JPEG is an error, not a grey picture")
    func truncated() throws {
        let original = try ImageFixtures.bytes("truncated.jpg")
        #expect {
            try thumbnailer.thumbnail(of: original, side: 160, format: .jpeg)
        } throws: { error in
            guard case .undecodable = error as? ImageError else { return false }
            return true
        }
    }
}
