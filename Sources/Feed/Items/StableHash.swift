/// A hash that is the same in every process and on every machine (Swift's `Hasher` is seeded
/// per process): 64-bit FNV-1a over UTF-8. For names that must stay stable (source keys, long
/// item ids), not for anything an attacker could exploit: nothing is bucketed by it.
public enum StableHash {
    /// FNV-1a of `text`'s UTF-8 bytes.
    public static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// `value` as exactly `digits` lowercase hex digits (its low bits).
    public static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return text.count >= digits
            ? String(text.suffix(digits)) : String(repeating: "0", count: digits - text.count) + text
    }
}
