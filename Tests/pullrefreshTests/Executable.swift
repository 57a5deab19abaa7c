import Foundation

/// The built `pullrefresh` binary and the scripts of this repository, run to completion.
enum Executable {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$PULLREFRESH_BIN`, or the binary built next to the tests.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["PULLREFRESH_BIN"] { return path }
        return repositoryRoot.appendingPathComponent(".build/debug/pullrefresh").path
    }

    struct Finished {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `path` (the binary by default) in the repository root, with `input` on its standard
    /// input (nothing when nil); both pipes are read on other threads so a long output cannot
    /// block the child.
    static func run(_ arguments: [String], path: String = binary, input: String? = nil) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "PORT")
        environment.removeValue(forKey: "REDIS_URL")
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let feed = input.map { _ in Pipe() }
        process.standardInput = feed ?? FileHandle.nullDevice
        try process.run()
        if let feed, let input {
            feed.fileHandleForWriting.write(Data(input.utf8))
            try feed.fileHandleForWriting.close()
        }
        let stdout = Reader(out.fileHandleForReading)
        let stderr = Reader(err.fileHandleForReading)
        process.waitUntilExit()
        return Finished(status: process.terminationStatus, stdout: stdout.text(), stderr: stderr.text())
    }

    /// Reads a pipe to its end on a thread of its own.
    private final class Reader: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func text() -> String {
            done.wait()
            return String(decoding: data, as: UTF8.self)
        }
    }
}
