import Compression
import Foundation
import TestSupport
import Testing

@testable import Feed

@Suite("gzip and brotli through the Compression module")
struct CompressionTests {
    /// Text like a page (repetitive) and bytes that do not compress at all.
    static let samples: [[UInt8]] = {
        let text = Array(
            (0..<400).map { "<li class=\"item\" data-item-id=\"\($0)\">Item \($0) — ünïcödé</li>\n" }.joined()
                .utf8)
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return [text, noise, [], [42]]
    }()

    @Test(arguments: [ContentCoding.gzip, .br], [CompressionEffort.perVersion, .maximum])
    func roundTrips(coding: ContentCoding, effort: CompressionEffort) throws {
        for sample in Self.samples {
            let encoded = try #require(coding.encode(sample, effort: effort))
            #expect(coding.decode(encoded) == sample)
        }
        let text = Self.samples[0]
        let encoded = try #require(coding.encode(text, effort: effort))
        #expect(encoded.count * 5 < text.count)
    }

    @Test func identityEncodesToNothingAndDecodesToItself() {
        #expect(ContentCoding.identity.encode([1, 2, 3], effort: .perVersion) == nil)
        #expect(ContentCoding.identity.decode([1, 2, 3]) == [1, 2, 3])
    }

    /// An independent decoder: Debian's `gzip -d` reads what zlib wrote.
    @Test func gzipOutputIsReadByTheGzipTool() throws {
        let text = Self.samples[0]
        let encoded = try #require(ContentCoding.gzip.encode(text, effort: .perVersion))
        #expect(try GzipTool.decompress(encoded) == text)
    }

    @Test(arguments: [ContentCoding.gzip, .br])
    func corruptOrOversizedInputIsNil(coding: ContentCoding) throws {
        let text = Self.samples[0]
        let encoded = try #require(coding.encode(text, effort: .perVersion))
        #expect(coding.decode(Array(encoded.prefix(encoded.count / 2))) == nil)
        #expect(coding.decode(encoded + [1, 2, 3]) == nil)
        #expect(coding.decode([0x1f, 0x8b, 0, 0, 9, 9, 9]) == nil)
        #expect(coding.decode(encoded, limit: text.count - 1) == nil)
        #expect(coding.decode(encoded, limit: text.count) == text)
    }
}
