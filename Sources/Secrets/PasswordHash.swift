import CSodium
import Foundation

/// Argon2id password hashes in libsodium's self-describing string form
/// (`$argon2id$v=19$m=65536,t=2,p=1$salt$hash`): a random salt per hash, and the parameters
/// in the string, so a hash made with other parameters still verifies.
///
/// Cost: `OPSLIMIT_INTERACTIVE` and `MEMLIMIT_INTERACTIVE` (2 passes over 64 MiB), about
/// 0.1 s of one core and 64 MiB held per hash or verification; callers bound how many run at
/// once. Both calls block their thread: keep them off Swift's cooperative pool.
public enum PasswordHash {
    /// How every hash this module makes begins.
    public static let prefix = "$argon2id$"

    /// A new hash of `password` (its Unicode NFC form, so the same characters typed on two
    /// keyboards verify alike). Throws when the 64 MiB cannot be had.
    public static func make(_ password: String) throws(SecretsError) -> String {
        Sodium.start()
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_strbytes()))
        let result = withBytes(of: password) { characters, count in
            crypto_pwhash_str(
                &output, characters, count, UInt64(crypto_pwhash_opslimit_interactive()),
                crypto_pwhash_memlimit_interactive())
        }
        guard result == 0 else {
            throw SecretsError("hashing the password failed: not enough memory for Argon2id (64 MiB)")
        }
        return String(decoding: output.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made from: false for any other password and
    /// for a `hash` that is not an Argon2 hash string.
    public static func verify(_ password: String, against hash: String) -> Bool {
        Sodium.start()
        guard isArgon2id(hash) else { return false }
        return withBytes(of: password) { characters, count in
            crypto_pwhash_str_verify(hash, characters, count)
        } == 0
    }

    /// Whether `text` has the form of a hash this module makes (not whether it is intact).
    public static func isArgon2id(_ text: String) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count < Int(crypto_pwhash_strbytes())
    }

    /// Calls `body` with the UTF-8 bytes of `password` in NFC and their count; the bytes are
    /// wiped after the call (a NUL is appended, so even an empty password has an address).
    private static func withBytes(
        of password: String, _ body: (UnsafePointer<CChar>, UInt64) -> Int32
    ) -> Int32 {
        var bytes = Array(password.precomposedStringWithCanonicalMapping.utf8.map { CChar(bitPattern: $0) })
        let count = bytes.count
        bytes.append(0)
        defer { sodium_memzero(&bytes, bytes.count) }
        return bytes.withUnsafeBufferPointer { body($0.baseAddress!, UInt64(count)) }
    }
}
