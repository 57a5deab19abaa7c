import CSodium

/// Unguessable strings for session ids, CSRF tokens and app tokens: 32 bytes from libsodium's
/// generator (the kernel's `getrandom`), written in base64url without padding (43 characters,
/// safe in cookies, headers and form fields as they are).
public enum RandomToken {
    /// Bytes of randomness in a token: 256 bits.
    public static let byteCount = 32
    /// Characters of a token: base64url of 32 bytes, unpadded.
    public static let length = 43

    /// A new token.
    public static func make() -> String {
        Sodium.start()
        var bytes = [UInt8](repeating: 0, count: byteCount)
        randombytes_buf(&bytes, byteCount)
        defer { sodium_memzero(&bytes, byteCount) }
        return base64URL(bytes)
    }

    /// Whether `text` could be a token: 43 characters of the base64url alphabet. Callers check
    /// this before hashing what a client sent, so junk of any size is turned away cheaply.
    public static func hasTokenForm(_ text: String) -> Bool {
        text.utf8.count == length
            && text.utf8.allSatisfy { byte in
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// `bytes` in base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING
        let capacity = sodium_base64_encoded_len(bytes.count, variant)
        var text = [CChar](repeating: 0, count: capacity)
        sodium_bin2base64(&text, capacity, bytes, bytes.count, variant)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
