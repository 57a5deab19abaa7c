/// An HTTP content coding the server can send (RFC 9110 §8.4.1). `deflate` is left out on
/// purpose: browsers disagree on whether it means raw or zlib-wrapped deflate, and gzip is the
/// same algorithm with an unambiguous frame.
public enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    /// Brotli (RFC 7932), libbrotlienc.
    case br
    /// gzip (RFC 1952), zlib.
    case gzip
    /// The bytes as they are.
    case identity

    /// The bytes compressed with this coding, or nil for `identity` (or if the library failed).
    public func encode(_ bytes: [UInt8], effort: CompressionEffort) -> [UInt8]? {
        switch self {
        case .br: Brotli.compress(bytes, quality: effort.brotliQuality)
        case .gzip: Gzip.compress(bytes, level: effort.gzipLevel)
        case .identity: nil
        }
    }

    /// The bytes decoded from this coding, or nil if they are not valid or would exceed `limit`
    /// bytes. Used by tests and the benchmark to check round trips.
    public func decode(_ bytes: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        switch self {
        case .br: Brotli.decompress(bytes, limit: limit)
        case .gzip: Gzip.decompress(bytes, limit: limit)
        case .identity: bytes.count <= limit ? bytes : nil
        }
    }
}
