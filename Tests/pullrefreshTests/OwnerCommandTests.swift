import Foundation
import Owner
import Storage
import Testing

/// `pullrefresh owner …` as a second process beside a running server's database: this process
/// holds the file as the server does (FeedDatabase's lock, an OwnerAuthority with its own
/// connections) while the binary changes the owner; each change counts at this process's next
/// lookup, without reopening anything.
@Suite("pullrefresh owner beside a running server")
struct OwnerCommandTests {
    @Test func theCommandLinesChangesCountAtTheServersNextLookup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ptr-owner-cli-" + UUID().uuidString.prefix(8).lowercased())
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("feed.sqlite").path
        let feed = try FeedDatabase(path: path)
        let server = OwnerAuthority(records: try OwnerRecords(path: path))
        #expect(!server.hasOwner)

        let set = try Executable.run(
            ["owner", "set-password", "--database", path], input: "first long password\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(server.hasOwner)
        let outcome = await server.signIn(password: "first long password", address: "127.0.0.1")
        guard case .signedIn(let session) = outcome else {
            Issue.record("sign-in after the command line set the password: \(outcome)")
            return
        }

        let made = try Executable.run(["owner", "token", "create", "phone", "--database", path])
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(server.token(bearer: token) == "phone")
        let revoked = try Executable.run(["owner", "token", "revoke", "phone", "--database", path])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(server.token(bearer: token) == nil)

        #expect(server.session(cookieValue: session.cookieValue) != nil)
        let changed = try Executable.run(
            ["owner", "set-password", "--database", path], input: "second long password\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("browser sessions signed out: 1"))
        #expect(server.session(cookieValue: session.cookieValue) == nil)
        #expect(await server.signIn(password: "first long password", address: "127.0.0.1") == .wrongPassword)
        #expect(try feed.integrityCheck() == "ok")
    }
}
