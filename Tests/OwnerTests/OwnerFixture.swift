import Foundation
import Logging
import Owner
import Storage
import Synchronization

/// A database file in a fresh temporary folder (removed when the fixture goes), a settable
/// clock, and authorities over the file: each ``authority(policy:)`` opens records of its own
/// (its own connections), as a second process would.
final class OwnerFixture: Sendable {
    let folder: URL
    let path: String
    private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ptr-owner-" + UUID().uuidString.prefix(8).lowercased(), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("owner.sqlite").path
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// The fixture's clock.
    var now: Date { time.withLock { $0 } }

    /// Moves the clock forward.
    func advance(_ seconds: TimeInterval) {
        time.withLock { $0 += seconds }
    }

    /// The owner's password in these tests.
    static let password = "a long enough password"

    /// An authority over records of its own on the file, the owner's password set.
    func owned(policy: OwnerPolicy = .standard) throws -> OwnerAuthority {
        let authority = try authority(policy: policy)
        try authority.setPassword(Self.password)
        return authority
    }

    /// An authority over records of its own on the file, on the fixture's clock.
    func authority(policy: OwnerPolicy = .standard) throws -> OwnerAuthority {
        OwnerAuthority(
            records: try OwnerRecords(path: path, creating: true), now: { [self] in now },
            logger: Logger(quiet: true), policy: policy)
    }

    /// A cookie value from a sign-in that must succeed.
    static func signedIn(_ outcome: SignInOutcome) -> NewSession? {
        if case .signedIn(let session) = outcome { return session }
        return nil
    }
}

extension OwnerAuthority {
    /// Whether the owner's password signs in from `address`.
    func signsIn(from address: String) async -> Bool {
        OwnerFixture.signedIn(await signIn(password: OwnerFixture.password, address: address)) != nil
    }

    /// A sign-in from `address` with the owner's password: the outcome.
    func rightPassword(from address: String) async -> SignInOutcome {
        await signIn(password: OwnerFixture.password, address: address)
    }

    /// A wrong guess from `address`: the outcome.
    func guess(from address: String) async -> SignInOutcome {
        await signIn(password: "wrong guess", address: address)
    }
}
