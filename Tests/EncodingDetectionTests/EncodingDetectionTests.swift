import Testing

@testable import EncodingDetection

/// uchardet behind ``EncodingDetector``, iconv behind ``LegacyDecoder``, and the checks that
/// decide whether detection runs and whether its answer is trusted.
@Suite("Encoding detection")
struct EncodingDetectionTests {
    static func decode(_ bytes: [UInt8]) -> DecodedText {
        bytes.withUnsafeBytes { LegacyDecoder.decode($0) }
    }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { UTF8Validation.isValid($0) }
    }

    @Test func utf8Validation() {
        #expect(Self.isValid([]))
        #expect(Self.isValid(Array("plain ASCII, longer than one eight-byte word".utf8)))
        #expect(Self.isValid(Array("Café ☕ 東京 𝄞 and more ASCII after it".utf8)))
        #expect(!Self.isValid(Array("caf".utf8) + [0xE9]))  // Latin-1
        #expect(!Self.isValid([0xC0, 0xAF]))  // overlong "/"
        #expect(!Self.isValid([0xE0, 0x80, 0xAF]))  // overlong, three bytes
        #expect(!Self.isValid([0xED, 0xA0, 0x80]))  // a UTF-16 surrogate
        #expect(!Self.isValid([0xF4, 0x90, 0x80, 0x80]))  // above U+10FFFF
        #expect(!Self.isValid(Array("a longer prefix of ASCII text".utf8) + [0xE6, 0x9D]))  // cut off
        #expect(!Self.isValid([0xFF]))
    }

    @Test func shiftJISIsDetectedAndConverted() {
        // 今日は東京で雨です。 twice, in Shift_JIS (made with `iconv -t SHIFT_JIS`).
        let sentence: [UInt8] = [
            0x8D, 0xA1, 0x93, 0xFA, 0x82, 0xCD, 0x93, 0x8C, 0x8B, 0x9E, 0x82, 0xC5, 0x89, 0x4A, 0x82, 0xC5,
            0x82, 0xB7, 0x81, 0x42,
        ]
        let decoded = Self.decode(Array("<p>".utf8) + sentence + sentence + Array("</p>".utf8))
        #expect(decoded.encoding == "WINDOWS-31J")
        #expect(decoded.detected)
        #expect(decoded.invalidBytes == 0)
        #expect(String(decoding: decoded.utf8, as: UTF8.self) == "<p>今日は東京で雨です。今日は東京で雨です。</p>")
    }

    @Test func noAnswerFallsBackToWindows1252() {
        // uchardet names nothing for these; Windows-1252 decodes every byte, the five it leaves
        // undefined as the C1 controls of the same value.
        let decoded = Self.decode(Array("A".utf8) + [0x81, 0x8D, 0x8F, 0x90, 0x9D])
        #expect(!decoded.detected)
        #expect(decoded.encoding == "WINDOWS-1252")
        #expect(String(decoding: decoded.utf8, as: UTF8.self) == "A\u{81}\u{8D}\u{8F}\u{90}\u{9D}")
    }

    @Test func aWindows1252AnswerIsReadByTableAndCountsAsDetected() {
        // "Price: 5€ today": uchardet names Windows-1252 for this one.
        let decoded = Self.decode(Array("Price: 5".utf8) + [0x80] + Array(" today".utf8))
        #expect(decoded.encoding == "WINDOWS-1252")
        #expect(decoded.detected)
        #expect(String(decoding: decoded.utf8, as: UTF8.self) == "Price: 5€ today")
    }

    @Test func windows1252ByTable() {
        let text = ([0x80, 0x93, 0x94, 0x99, 0xE9, 0xFF] as [UInt8]).withUnsafeBytes { Windows1252.utf8($0) }
        #expect(String(decoding: text, as: UTF8.self) == "€“”™éÿ")
    }

    @Test func undecodableBytesBecomeOneReplacementEachAndAreCounted() throws {
        // EUC-JP 東京 with a stray 0xFF between the characters and a cut-off byte at the end.
        let bytes: [UInt8] = [0xC5, 0xEC, 0xFF, 0xB5, 0xFE, 0x41, 0xC5]
        let (utf8, invalid) = try #require(
            bytes.withUnsafeBytes { LegacyDecoder.convert($0, from: "EUC-JP") })
        #expect(String(decoding: utf8, as: UTF8.self) == "東\u{FFFD}京A\u{FFFD}")
        #expect(invalid == 2)
        #expect([UInt8]().withUnsafeBytes { LegacyDecoder.convert($0, from: "NO-SUCH-CHARSET") } == nil)
    }

    @Test func aCandidateUnderWhichTooManyBytesFailIsNotTrusted() {
        // Latin-1 French read as EUC-JP: most of its accented letters start no EUC-JP character.
        let latin1: [UInt8] =
            Array("Un ".utf8) + [0xE9, 0x74, 0xE9] + Array(" ".utf8) + [0xE0] + Array(" Paris, o".utf8)
            + [0xF9] + Array(" l'on boit du th".utf8) + [0xE9, 0x2E]
        let decoded = latin1.withUnsafeBytes { LegacyDecoder.decode($0, candidate: "EUC-JP") }
        #expect(!decoded.detected)
        #expect(String(decoding: decoded.utf8, as: UTF8.self) == "Un été à Paris, où l'on boit du thé.")
        // The same candidate for real EUC-JP (東京) is kept.
        let eucJP = ([0xC5, 0xEC, 0xB5, 0xFE] as [UInt8]).withUnsafeBytes {
            LegacyDecoder.decode($0, candidate: "EUC-JP")
        }
        #expect(eucJP.detected)
        #expect(String(decoding: eucJP.utf8, as: UTF8.self) == "東京")
    }
}
