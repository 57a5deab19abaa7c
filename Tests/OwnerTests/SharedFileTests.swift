import Dispatch
import Foundation
import Owner
import Storage
import Testing

/// The command line and the server on one file: the server holds the file's lock
/// (FeedDatabase) and its authority reads through connections of its own; what another
/// connection (the command line, `pullrefresh owner …`) changes counts at the server's next
/// lookup, without a restart.
@Suite("Owner records shared with a running server")
struct SharedFileTests {
    @Test func whatTheCommandLineChangesCountsAtTheServersNextRequest() async throws {
        let fixture = try OwnerFixture()
        // The running server: the feed's database (holding the lock) and its authority.
        let feed = try FeedDatabase(path: fixture.path)
        let server = try fixture.authority()
        try server.prepare()
        #expect(!server.hasOwner)
        // The command line, while the server runs: no lock needed.
        let commandLine = try fixture.authority()
        try commandLine.setPassword(OwnerFixture.password)
        #expect(server.hasOwner)
        let session = try #require(
            OwnerFixture.signedIn(await server.rightPassword(from: "127.0.0.1")))
        #expect(server.session(cookieValue: session.cookieValue) != nil)

        let token = try commandLine.createToken(name: "phone")
        #expect(server.token(bearer: token) == "phone")
        #expect(try OwnerRecords(path: fixture.path).revokeToken(name: "phone"))
        #expect(server.token(bearer: token) == nil)

        try commandLine.setPassword("a brand new password")
        #expect(server.session(cookieValue: session.cookieValue) == nil)
        #expect(await server.rightPassword(from: "127.0.0.1") == .wrongPassword)
        #expect(
            OwnerFixture.signedIn(await server.signIn(password: "a brand new password", address: "127.0.0.1"))
                != nil)
        #expect(try feed.integrityCheck() == "ok")
    }

    @Test func theCommandLineWritesWhileTheServerHoldsAWriteTransaction() async throws {
        let fixture = try OwnerFixture()
        _ = try FeedDatabase(path: fixture.path)
        let server = try fixture.authority()
        try server.setPassword(OwnerFixture.password)
        // A writer busy for a moment (as a reload is): the command line waits its turn.
        let holder = try DatabaseHolder(path: fixture.path)
        try holder.begin()
        // Released by a thread of its own: the cooperative pool may be busy with other tests.
        let released = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) {
            holder.commit()
            released.signal()
        }
        let token = try fixture.authority().createToken(name: "waited")
        released.wait()
        #expect(server.token(bearer: token) == "waited")
    }

    @Test func theServerAndTheCommandLineHashWithTheSameKey() throws {
        let fixture = try OwnerFixture()
        let first = try fixture.authority()
        try first.setPassword(OwnerFixture.password)
        let tokens = try (0..<5).map { try fixture.authority().createToken(name: "t\($0)") }
        for (index, token) in tokens.enumerated() { #expect(first.token(bearer: token) == "t\(index)") }
    }

    @Test func aMissingFileIsMadeOnlyWhenAsked() throws {
        let fixture = try OwnerFixture()
        #expect(throws: StorageError("database \(fixture.path) does not exist")) {
            try OwnerRecords(path: fixture.path)
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.path))
        _ = try OwnerRecords(path: fixture.path, creating: true)
        // The server starts on a file the command line made.
        let feed = try FeedDatabase(path: fixture.path)
        #expect(try feed.load(maxItems: 10).snapshot == nil)
    }
}
