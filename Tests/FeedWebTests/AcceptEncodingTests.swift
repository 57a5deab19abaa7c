import Compression
import Testing

@testable import Feed
@testable import FeedWeb

@Suite("Accept-Encoding negotiation")
struct AcceptEncodingTests {
    @Test(
        arguments: [
            (nil, ContentCoding.identity),
            ("", .identity),
            ("gzip, deflate, br", .br),
            ("gzip", .gzip),
            ("GZIP", .gzip),
            ("x-gzip", .gzip),
            ("deflate", .identity),
            ("identity", .identity),
            ("br;q=0, gzip", .gzip),
            ("br;q=0", .identity),
            ("br;q=0.5, gzip;q=0.8", .gzip),
            ("br;q=0.8, gzip;q=0.8", .br),
            ("gzip;q=0.8, br;q=0.8", .br),
            ("gzip;q=1, identity;q=1", .gzip),
            ("br;q=0.2, identity", .identity),
            ("br ; q=0.9 , gzip;q=0.91", .gzip),
            ("br;level=5", .br),
            ("br;q=0.001", .br),
            ("*", .br),
            ("*;q=0.5, gzip", .gzip),
            ("*;q=0", .identity),
            ("*;q=0, gzip", .gzip),
            ("br;q=0, *", .gzip),
            ("identity;q=0", .identity),
            ("gzip;q=0.1, identity;q=0", .gzip),
            ("gzip;q=0, br;q=0, identity;q=0", .identity),
            // Garbage is tolerated: bad entries are skipped, the rest still counts.
            ("br;q=abc, gzip", .gzip),
            ("br;q=2", .identity),
            ("gzip;q=1.001", .identity),
            ("gzip;q=0.0001", .identity),
            ("gzip;q=", .identity),
            ("gzip;q=-1, br", .br),
            ("🙂, ;;, br", .br),
            (" , , ", .identity),
            ("br;;q=0.5;, gzip;q=0.4", .br),
            ("\u{0}gzip", .identity),
            ("gzip\tbr", .identity),
            ("gzip, br;q=nan, identity;q=inf", .gzip),
        ] as [(String?, ContentCoding)])
    func choosesByQualityThenServerOrder(header: String?, expected: ContentCoding) {
        #expect(AcceptEncoding.choose(header, brotli: true, gzip: true) == expected)
    }

    /// The values browsers send are answered from a table parsed at start; these are their
    /// qualities written out by hand, and a near miss that must still be parsed.
    @Test(
        arguments: [
            ("gzip, deflate, br, zstd", AcceptEncoding.Qualities(br: 1000, gzip: 1000)),
            ("gzip, deflate, br", AcceptEncoding.Qualities(br: 1000, gzip: 1000)),
            ("gzip, deflate", AcceptEncoding.Qualities(gzip: 1000)),
            ("deflate, gzip", AcceptEncoding.Qualities(gzip: 1000)),
            ("gzip, deflate, br;q=0", AcceptEncoding.Qualities(br: 0, gzip: 1000)),
            ("gzip, deflate, br ", AcceptEncoding.Qualities(br: 1000, gzip: 1000)),
        ])
    func browserValuesHaveTheirQualities(header: String, expected: AcceptEncoding.Qualities) {
        #expect(AcceptEncoding.qualities(header) == expected)
    }

    @Test func onlyOffersVariantsThatExist() {
        #expect(AcceptEncoding.choose("br", brotli: false, gzip: true) == .identity)
        #expect(AcceptEncoding.choose("br, gzip;q=0.1", brotli: false, gzip: true) == .gzip)
        #expect(AcceptEncoding.choose("gzip, br", brotli: false, gzip: false) == .identity)
    }

    @Test func etagsDifferPerEncoding() {
        let tag = "\"abc-p3\""
        let tags = ContentCoding.allCases.map { Representation.etag(tag, for: $0) }
        #expect(Set(tags).count == 3)
        #expect(tags.allSatisfy { $0.hasPrefix("\"abc-p3") && $0.hasSuffix("\"") })
    }
}
