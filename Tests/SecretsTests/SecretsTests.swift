import Testing

@testable import Secrets

/// libsodium through Secrets: Argon2id hashes that verify only their password, tokens of the
/// promised form and entropy, a keyed hash that depends on its key, constant-time equality.
@Suite("Secrets")
struct SecretsTests {
    @Test func aPasswordHashIsArgon2idAndVerifiesOnlyItsPassword() throws {
        let hash = try PasswordHash.make("correct horse battery")
        #expect(hash.hasPrefix("$argon2id$v=19$m=65536,t=2,p=1$"))
        #expect(PasswordHash.verify("correct horse battery", against: hash))
        #expect(!PasswordHash.verify("correct horse batterY", against: hash))
        #expect(!PasswordHash.verify("", against: hash))
        // A random salt each time: the same password never gives the same string twice.
        let again = try PasswordHash.make("correct horse battery")
        #expect(again != hash)
        #expect(PasswordHash.verify("correct horse battery", against: again))
    }

    @Test func aPasswordTypedInAnotherUnicodeFormStillVerifies() throws {
        let composed = "caf\u{E9} au lait!"  // é as one code point
        let decomposed = "cafe\u{301} au lait!"  // e + combining acute
        #expect(Array(composed.utf8) != Array(decomposed.utf8))
        let hash = try PasswordHash.make(composed)
        #expect(PasswordHash.verify(decomposed, against: hash))
    }

    @Test func whatIsNoHashNeverVerifies() {
        #expect(!PasswordHash.verify("anything", against: ""))
        #expect(!PasswordHash.verify("anything", against: "anything"))
        #expect(!PasswordHash.verify("x", against: "$argon2id$v=19$m=65536,t=2,p=1$broken"))
        #expect(!PasswordHash.isArgon2id("$2y$10$bcrypt"))
    }

    @Test func tokensAre43Base64URLCharactersAndNeverRepeat() {
        var seen = Set<String>()
        for _ in 0..<2000 {
            let token = RandomToken.make()
            #expect(token.count == 43)
            #expect(RandomToken.hasTokenForm(token))
            #expect(!token.contains("=") && !token.contains("+") && !token.contains("/"))
            seen.insert(token)
        }
        #expect(seen.count == 2000)
    }

    @Test func junkDoesNotHaveTheFormOfAToken() {
        let token = RandomToken.make()
        #expect(!RandomToken.hasTokenForm(""))
        #expect(!RandomToken.hasTokenForm(String(token.dropLast())))
        #expect(!RandomToken.hasTokenForm(token + "A"))
        #expect(!RandomToken.hasTokenForm(String(token.dropLast()) + "/"))
        #expect(!RandomToken.hasTokenForm(String(token.dropLast()) + "é"))
        #expect(!RandomToken.hasTokenForm(String(repeating: "A", count: 10_000)))
    }

    @Test func base64URLIsTheRFC4648Alphabet() {
        #expect(RandomToken.base64URL([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(RandomToken.base64URL([0x66, 0x6F]) == "Zm8")
    }

    @Test func theKeyedHashDependsOnTheKeyAndTheText() throws {
        let key = KeyedHash.newKey()
        #expect(key.count == 32)
        let hash = try #require(KeyedHash(key: key))
        let other = try #require(KeyedHash(key: KeyedHash.newKey()))
        #expect(hash.digest("token").count == 32)
        #expect(hash.digest("token") == hash.digest("token"))
        #expect(hash.digest("token") != hash.digest("tokeN"))
        #expect(hash.digest("token") != other.digest("token"))
        #expect(KeyedHash(key: [1, 2, 3]) == nil)
    }

    @Test func constantTimeEqualityIsEquality() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([], []))
        #expect(ConstantTime.equal("csrf-token", "csrf-token"))
        #expect(!ConstantTime.equal("csrf-token", "csrf-tokeN"))
        #expect(!ConstantTime.equal("csrf-token", ""))
    }
}
