import Foundation
import Owner
import Storage
import Testing

/// The owner's sign-in, sessions, tokens and CSRF tokens on real SQLite files, with the clock
/// set by the test for expiry and throttle windows.
@Suite("Owner authority")
struct OwnerAuthorityTests {
    @Test func withoutAnOwnerThereIsNothingToSignInTo() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.authority()
        #expect(!authority.hasOwner)
        #expect(await authority.rightPassword(from: "127.0.0.1") == .noOwner)
        try authority.setPassword(OwnerFixture.password)
        #expect(authority.hasOwner)
    }

    @Test func aShortPasswordIsRefused() throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.authority()
        #expect(throws: StorageError.self) { try authority.setPassword("123456789") }
        #expect(!authority.hasOwner)
        try authority.setPassword("1234567890")
        #expect(authority.hasOwner)
    }

    @Test func theRightPasswordMakesANewSessionThatSignOutEnds() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        #expect(await authority.signIn(password: "not the password", address: "127.0.0.1") == .wrongPassword)
        let outcome = await authority.rightPassword(from: "127.0.0.1")
        let session = try #require(OwnerFixture.signedIn(outcome))
        #expect(session.cookieValue.count == 43 && session.csrfToken.count == 43)
        #expect(session.cookieValue != session.csrfToken)
        #expect(session.expiresAt == fixture.now + 30 * 24 * 3600)
        let active = try #require(authority.session(cookieValue: session.cookieValue))
        #expect(
            active
                == ActiveSession(
                    userName: "owner", csrfToken: session.csrfToken, expiresAt: session.expiresAt))
        // A second sign-in is another session: never the first one again.
        let second = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "::1")))
        #expect(second.cookieValue != session.cookieValue && second.csrfToken != session.csrfToken)
        authority.signOut(cookieValue: session.cookieValue)
        #expect(authority.session(cookieValue: session.cookieValue) == nil)
        #expect(authority.session(cookieValue: second.cookieValue) != nil)
        authority.signOutEverywhere()
        #expect(authority.session(cookieValue: second.cookieValue) == nil)
    }

    @Test func aCookieOfNoSessionIsNobody() throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        #expect(authority.session(cookieValue: "") == nil)
        #expect(authority.session(cookieValue: String(repeating: "A", count: 43)) == nil)
        #expect(authority.session(cookieValue: String(repeating: "A", count: 100_000)) == nil)
        #expect(authority.token(bearer: String(repeating: "A", count: 43)) == nil)
    }

    @Test func theFileHoldsNeitherCookieNorTokenInClear() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        let session = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "127.0.0.1")))
        let token = try authority.createToken(name: "phone")
        authority.flush()
        let bytes =
            try Data(contentsOf: URL(fileURLWithPath: fixture.path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: fixture.path + "-wal"))) ?? Data())
        #expect(bytes.range(of: Data(session.cookieValue.utf8)) == nil)
        #expect(bytes.range(of: Data(token.utf8)) == nil)
        #expect(bytes.range(of: Data(OwnerFixture.password.utf8)) == nil)
        // The CSRF token is kept as it is (the pages must show it); it is no credential alone.
        #expect(bytes.range(of: Data(session.csrfToken.utf8)) != nil)
    }

    @Test func theCSRFTokenMatchesOnlyItself() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        let session = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "127.0.0.1")))
        let active = try #require(authority.session(cookieValue: session.cookieValue))
        #expect(authority.csrfMatches(active, presented: session.csrfToken))
        #expect(!authority.csrfMatches(active, presented: String(session.csrfToken.dropLast()) + "x"))
        #expect(!authority.csrfMatches(active, presented: ""))
        #expect(!authority.csrfMatches(active, presented: session.cookieValue))
    }

    @Test func aSessionSlidesWithUseAndEndsAfter30IdleDays() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        let session = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "127.0.0.1")))
        let day: TimeInterval = 24 * 3600
        fixture.advance(29 * day)
        let used = try #require(authority.session(cookieValue: session.cookieValue))
        #expect(used.expiresAt == fixture.now + 30 * day)
        authority.flush()
        // 58 days after sign-in: past the first 30, alive because it was used at day 29.
        fixture.advance(29 * day)
        #expect(authority.session(cookieValue: session.cookieValue) != nil)
        authority.flush()
        fixture.advance(30 * day + 1)
        #expect(authority.session(cookieValue: session.cookieValue) == nil)
        authority.flush()
        #expect(try OwnerRecords(path: fixture.path).sessionCount() == 0)
    }

    @Test func aNewPasswordSignsOutEveryBrowserButKeepsTokens() async throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.owned()
        let first = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "127.0.0.1")))
        let second = try #require(
            OwnerFixture.signedIn(await authority.rightPassword(from: "127.0.0.2")))
        let token = try authority.createToken(name: "reader app")
        #expect(try authority.setPassword("another long password") == 2)
        #expect(authority.session(cookieValue: first.cookieValue) == nil)
        #expect(authority.session(cookieValue: second.cookieValue) == nil)
        #expect(authority.token(bearer: token) == "reader app")
        #expect(await authority.rightPassword(from: "127.0.0.1") == .wrongPassword)
        #expect(
            OwnerFixture.signedIn(
                await authority.signIn(password: "another long password", address: "127.0.0.1")) != nil)
    }

    @Test func tokensAreMadeOnceListedAndRevoked() throws {
        let fixture = try OwnerFixture()
        let authority = try fixture.authority()
        #expect(throws: StorageError("no owner yet: set a password first")) {
            try authority.createToken(name: "early")
        }
        try authority.setPassword(OwnerFixture.password)
        let token = try authority.createToken(name: "phone")
        #expect(throws: StorageError("a token named 'phone' exists already (revoke it first)")) {
            try authority.createToken(name: "phone")
        }
        let records = try OwnerRecords(path: fixture.path)
        #expect(try records.tokens().map(\.lastUsedAt) == [nil])
        fixture.advance(90)
        #expect(authority.token(bearer: token) == "phone")
        authority.flush()
        #expect(try records.tokens().map(\.lastUsedAt) == [fixture.now])
        #expect(try records.revokeToken(name: "phone"))
        #expect(try !records.revokeToken(name: "phone"))
        #expect(authority.token(bearer: token) == nil)
    }
}
