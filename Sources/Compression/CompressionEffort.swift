/// How hard to compress: bodies built once per store version get a fast setting, files that
/// change rarely (static files, the OpenAPI document) the densest one.
public enum CompressionEffort: Sendable, Hashable {
    /// For bodies rebuilt on every new version: brotli quality 6, gzip level 6.
    case perVersion
    /// For bodies built once per process or per file change: brotli quality 11, gzip level 9.
    case maximum

    var brotliQuality: Int32 {
        switch self {
        case .perVersion: 6
        case .maximum: 11
        }
    }

    var gzipLevel: Int32 {
        switch self {
        case .perVersion: 6
        case .maximum: 9
        }
    }
}
