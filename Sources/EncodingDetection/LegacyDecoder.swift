import Glibc

/// Text in an encoding nobody declared, read as UTF-8: ``EncodingDetector`` names a candidate,
/// iconv (glibc's, which knows every encoding uchardet names) converts, and an unsure answer
/// falls back to Windows-1252, the web's default for undeclared legacy text, which decodes every
/// byte. Never a page of replacement characters.
///
/// Converted here rather than by the consumer (libxml2 can convert through iconv itself):
/// libxml2 2.9 stops the whole document at the first byte its converter rejects, while this
/// loop replaces such a byte with U+FFFD and goes on.
public enum LegacyDecoder {
    /// At most one undecodable byte per this many non-ASCII bytes (plus one) for a detection to
    /// count as sure: a real document may carry a stray byte, a wrong guess fails far more often.
    public static let nonASCIIPerInvalidByte = 100

    /// `bytes` read as the encoding uchardet detects, or as Windows-1252 when it has no answer,
    /// iconv does not know its answer, or too many bytes do not decode under it.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> DecodedText {
        decode(bytes, candidate: EncodingDetector.guess(bytes))
    }

    /// `bytes` read as `candidate` when it decodes them (see ``nonASCIIPerInvalidByte``), else
    /// as Windows-1252.
    static func decode(_ bytes: UnsafeRawBufferPointer, candidate: String?) -> DecodedText {
        // Windows-1252 itself is read by table, where every byte decodes (glibc's iconv rejects
        // the five bytes the code page leaves undefined).
        if let candidate, candidate != "WINDOWS-1252", let (utf8, invalid) = convert(bytes, from: candidate) {
            let nonASCII = bytes.reduce(0) { $0 + ($1 >= 0x80 ? 1 : 0) }
            if invalid <= 1 + nonASCII / nonASCIIPerInvalidByte {
                return DecodedText(utf8: utf8, encoding: candidate, detected: true, invalidBytes: invalid)
            }
        }
        return DecodedText(
            utf8: Windows1252.utf8(bytes), encoding: "WINDOWS-1252", detected: candidate == "WINDOWS-1252",
            invalidBytes: 0)
    }

    /// `bytes` converted from `charset` to UTF-8 with iconv, each byte it rejects replaced by
    /// U+FFFD, and the number of those; nil when iconv does not know `charset`.
    public static func convert(_ bytes: UnsafeRawBufferPointer, from charset: String) -> ([UInt8], Int)? {
        let converter = iconv_open("UTF-8", charset)
        guard let converter, converter != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(converter) }
        // Two-byte CJK characters become three UTF-8 bytes: 1.5x covers them, growing otherwise.
        var output = [UInt8](repeating: 0, count: bytes.count + bytes.count / 2 + 64)
        var written = 0
        var invalid = 0
        var input: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: bytes.baseAddress)?
            .assumingMemoryBound(to: CChar.self)
        var inputLeft = bytes.count
        var flushed = false
        while !flushed {
            if output.count - written < 16 {
                output.append(contentsOf: repeatElement(0, count: output.count))
            }
            let failure: Int32? = output.withUnsafeMutableBytes { buffer in
                var target: UnsafeMutablePointer<CChar>? = (buffer.baseAddress! + written)
                    .assumingMemoryBound(
                        to: CChar.self)
                var targetLeft = buffer.count - written
                // With input left, convert it; then one call without input ends a shift state
                // (ISO-2022-JP).
                let result =
                    inputLeft > 0
                    ? iconv(converter, &input, &inputLeft, &target, &targetLeft)
                    : iconv(converter, nil, nil, &target, &targetLeft)
                written = buffer.count - targetLeft
                return result == -1 ? errno : nil
            }
            switch failure {
            case nil:
                if inputLeft == 0 { flushed = true }
            case E2BIG:
                output.append(contentsOf: repeatElement(0, count: output.count))
            case EILSEQ, EINVAL:
                // A byte that starts no character here, or a sequence cut off at the end.
                invalid += 1
                input = input.map { $0 + 1 }
                inputLeft -= 1
                if output.count - written < 3 {
                    output.append(contentsOf: repeatElement(0, count: output.count))
                }
                output.replaceSubrange(written..<written + 3, with: [0xEF, 0xBF, 0xBD])
                written += 3
            default:
                return nil
            }
        }
        output.removeSubrange(written...)
        return (output, invalid)
    }
}
