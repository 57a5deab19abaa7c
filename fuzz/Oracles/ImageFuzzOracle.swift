// The image fuzz oracle and its replay tests, in one file so both run the same logic.
//
// It lives under fuzz/Oracles/. fuzz/Sources/FuzzImage/ImageFuzzOracle.swift is a symlink to it,
// built with `FUZZING` defined; there only `ImageFuzzOracle` exists. ImagesTests compiles it
// through Tests/ImagesTests/ImageFuzzOracle.swift, where the suite at the bottom replays every
// file in fuzz/corpus/image/ and fuzz/regressions/image/ through the same oracle.

import Foundation
import Images

#if !FUZZING
    import TestSupport
#endif

#if !FUZZING
    import Testing
#endif

/// Arbitrary bytes through the decode-and-resize path: the thumbnailer either refuses them
/// with an ``ImageError`` or returns a thumbnail that fits its box and decodes back to its size.
enum ImageFuzzOracle {
    /// An invariant that did not hold.
    struct Violation: Error, CustomStringConvertible {
        let description: String
    }

    /// The first byte picks the box (one of the route's widths) and the encoding; the rest is
    /// the original.
    static func exercise(_ input: [UInt8]) throws(Violation) {
        guard let selector = input.first else { return }
        let widths = [96, 160, 240, 320, 480]
        let side = widths[Int(selector) % widths.count]
        let format = ThumbnailFormat.allCases[Int(selector / 5) % ThumbnailFormat.allCases.count]
        let original = Array(input.dropFirst())
        let thumbnail: Thumbnail
        do {
            thumbnail = try Thumbnailer().thumbnail(of: original, side: side, format: format)
        } catch {
            return  // refused with a typed error: fine
        }
        guard thumbnail.width > 0, thumbnail.height > 0, thumbnail.width <= side, thumbnail.height <= side
        else {
            throw Violation(description: "\(thumbnail.width)x\(thumbnail.height) does not fit \(side)")
        }
        let header: ImageHeader
        do {
            header = try thumbnail.bytes.withUnsafeBytes { try ImageHeader.read($0) }
        } catch {
            throw Violation(description: "the \(format) output does not decode: \(error)")
        }
        guard header.width == thumbnail.width, header.height == thumbnail.height else {
            throw Violation(
                description:
                    "output header \(header.width)x\(header.height) ≠ \(thumbnail.width)x\(thumbnail.height)")
        }
    }
}

#if !FUZZING
    @Suite("Image fuzz corpus and regressions") struct ImageFuzzReplayTests {
        static let folders = ["fuzz/corpus/image", "fuzz/regressions/image"].map { folder in
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(folder)
        }

        @Test("every corpus and regression input keeps the invariants")
        func replay() async throws {
            var replayed = 0
            for folder in Self.folders {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                for name in names.sorted() {
                    let input = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
                    // Off Swift's pool: libvips blocks its thread while it works.
                    let violation = try await RawConnection.offPool { () -> String? in
                        do {
                            try ImageFuzzOracle.exercise(input)
                            return nil
                        } catch {
                            return "\(error)"
                        }
                    }
                    #expect(violation == nil, "\(name): \(violation ?? "")")
                    replayed += 1
                }
            }
            #expect(replayed >= 6, "the corpus is in fuzz/corpus/image")
        }
    }
#endif
