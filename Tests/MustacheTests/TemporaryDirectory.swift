import Foundation

/// A scratch directory of template files, removed when the test is done.
struct TemporaryDirectory: ~Copyable {
    let url: URL

    init(files: [String: String]) throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("mustache-tests-\(UUID().uuidString)", isDirectory: true)
        for (path, contents) in files {
            let file = url.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: file)
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}
