/// Strong entity tags for bodies the app holds in memory (static files, documents, thumbnails).
public enum EntityTag {
    /// A quoted strong `ETag` for `bytes`: FNV-1a over the body, then its length. Not a
    /// security hash; it only has to change when the body does.
    public static func of(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\"\(String(hash, radix: 16))-\(bytes.count)\""
    }
}
