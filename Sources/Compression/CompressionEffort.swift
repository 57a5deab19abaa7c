/// How hard to compress. Brotli's qualities 10 and 11 parse optimally: on a 13 KB page they
/// save about 10% over quality 6 and cost 20 to 80 times as much CPU (bench/COMPRESSION.md).
public enum CompressionEffort: Sendable, Hashable {
    /// For bodies rebuilt on every new version: brotli quality 6, gzip level 6 (a few hundred
    /// microseconds for a page).
    case perVersion
    /// For the few bodies most readers fetch at every version (the first page of `/`): brotli
    /// quality 10, gzip level 6 (a few milliseconds, once per version and variant).
    case dense
    /// For bodies built once per process or per file change (static files, the OpenAPI
    /// document): brotli quality 11, gzip level 9.
    case maximum

    var brotliQuality: Int32 {
        switch self {
        case .perVersion: 6
        case .dense: 10
        case .maximum: 11
        }
    }

    var gzipLevel: Int32 {
        switch self {
        case .perVersion, .dense: 6
        case .maximum: 9
        }
    }
}
