/// Bytes of an undeclared encoding, turned into UTF-8 by ``LegacyDecoder``.
public struct DecodedText: Sendable, Equatable {
    /// The text as UTF-8.
    public var utf8: [UInt8]
    /// The encoding it was read as, as iconv names it (`EUC-JP`, `WINDOWS-1252`…).
    public var encoding: String
    /// True when ``encoding`` is the detector's answer; false when detection was unsure and the
    /// bytes were read as Windows-1252.
    public var detected: Bool
    /// Bytes that did not decode under ``encoding`` (each became U+FFFD); always 0 for the
    /// Windows-1252 fallback.
    public var invalidBytes: Int

    /// Creates a decoded text.
    public init(utf8: [UInt8], encoding: String, detected: Bool, invalidBytes: Int) {
        self.utf8 = utf8
        self.encoding = encoding
        self.detected = detected
        self.invalidBytes = invalidBytes
    }
}
