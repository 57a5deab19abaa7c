import CUchardet

/// Guesses the encoding of bytes that do not say what they are, with uchardet (Mozilla's
/// universal charset detector as Debian packages it): the only code that sees its pointers.
///
/// uchardet 0.0.7 names an encoding or nothing, with no confidence figure, so its answer is only
/// a candidate: ``LegacyDecoder`` checks that the bytes really decode under it.
public enum EncodingDetector {
    /// How much of the input the detector reads: enough text for its language models (it
    /// settles on multi-byte encodings within a few hundred characters), without running over
    /// a whole 16 MiB feed.
    public static let sampleBytes = 256 * 1024

    /// The name uchardet gives the encoding of `bytes` (its first ``sampleBytes``), as iconv
    /// knows it: a superset where the web uses one (ISO-8859-1 is read as Windows-1252, EUC-KR
    /// as UHC, GB2312 as GB18030, Shift_JIS as Windows-31J, as browsers do); nil when it has no
    /// answer.
    public static func guess(_ bytes: UnsafeRawBufferPointer) -> String? {
        guard let detector = uchardet_new() else { return nil }
        defer { uchardet_delete(detector) }
        let sample = UnsafeRawBufferPointer(rebasing: bytes.prefix(sampleBytes))
        guard let start = sample.baseAddress?.assumingMemoryBound(to: CChar.self),
            uchardet_handle_data(detector, start, sample.count) == 0
        else { return nil }
        uchardet_data_end(detector)
        guard let name = uchardet_get_charset(detector).map({ String(cString: $0) }), !name.isEmpty else {
            return nil
        }
        return webSuperset[name.uppercased()] ?? name.uppercased()
    }

    /// The encodings browsers decode in place of the one named (WHATWG Encoding's labels).
    private static let webSuperset = [
        "ISO-8859-1": "WINDOWS-1252", "ASCII": "WINDOWS-1252", "EUC-KR": "UHC", "GB2312": "GB18030",
        "SHIFT_JIS": "WINDOWS-31J",
    ]
}
