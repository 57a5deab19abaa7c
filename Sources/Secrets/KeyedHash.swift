import CSodium

/// The fast keyed hash of session ids and app tokens (BLAKE2b, libsodium's
/// `crypto_generichash`, 32 bytes, keyed with a server key kept in the database): what is
/// stored in place of the secret. The secrets are 256 random bits, so a slow password hash
/// would add nothing; the key means a copy of the tables alone cannot even confirm a guess.
public struct KeyedHash: Sendable {
    /// Bytes of a key.
    public static let keyLength = 32
    /// Bytes of a digest.
    public static let digestLength = 32

    private let key: [UInt8]

    /// A hash keyed with `key`, which must be ``keyLength`` bytes (nil otherwise).
    public init?(key: [UInt8]) {
        guard key.count == Self.keyLength else { return nil }
        self.key = key
    }

    /// A new random key.
    public static func newKey() -> [UInt8] {
        Sodium.start()
        var key = [UInt8](repeating: 0, count: keyLength)
        randombytes_buf(&key, keyLength)
        return key
    }

    /// The digest of `text`'s UTF-8 bytes.
    public func digest(_ text: String) -> [UInt8] {
        Sodium.start()
        var output = [UInt8](repeating: 0, count: Self.digestLength)
        let input = Array(text.utf8)
        crypto_generichash(&output, Self.digestLength, input, UInt64(input.count), key, key.count)
        return output
    }
}
