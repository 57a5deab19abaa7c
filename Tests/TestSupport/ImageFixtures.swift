public import Foundation

/// The image fixtures of the thumbnail tests, written once per test process by
/// `Tests/images/make-images.py` (Pillow; `Tests/images/requirements.txt`) into a fresh
/// temporary folder, so the repository holds no binary pictures.
public enum ImageFixtures {
    /// The folder, or the reason it could not be made.
    public static let folder: Result<URL, ImageFixtureError> = {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("images/make-images.py")
        let target = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pullrefresh-images-\(getpid())-\(UUID().uuidString.prefix(8))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, target.path]
        do {
            try process.run()
        } catch {
            return .failure(ImageFixtureError(message: "cannot run \(script.path): \(error)"))
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(
                ImageFixtureError(
                    message: "\(script.path) failed (pip install -r Tests/images/requirements.txt)"))
        }
        return .success(target)
    }()

    /// The bytes of one fixture, e.g. `photo.jpg`, read on a thread of its own: the first call
    /// waits for the script, and a test blocking Swift's few pool threads would starve the
    /// servers of the suites running beside it.
    public static func bytes(_ name: String) async throws -> [UInt8] {
        try await RawConnection.offPool {
            [UInt8](try Data(contentsOf: try folder.get().appendingPathComponent(name)))
        }
    }
}

/// Why the fixtures could not be written.
public struct ImageFixtureError: Error, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The message.
    public var description: String { message }
}
