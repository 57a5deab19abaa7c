import CSodium

/// Comparisons of secrets whose time does not depend on where they differ (`sodium_memcmp`),
/// so a client timing the answers learns nothing of a token's bytes.
public enum ConstantTime {
    /// Whether `left` and `right` are the same bytes. Lengths are compared first (they are
    /// not secret: every token has the same length).
    public static func equal(_ left: [UInt8], _ right: [UInt8]) -> Bool {
        Sodium.start()
        guard left.count == right.count else { return false }
        guard !left.isEmpty else { return true }
        return sodium_memcmp(left, right, left.count) == 0
    }

    /// Whether two strings are the same UTF-8 bytes, in constant time for equal lengths.
    public static func equal(_ left: String, _ right: String) -> Bool {
        equal(Array(left.utf8), Array(right.utf8))
    }
}
