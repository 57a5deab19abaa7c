import Foundation

/// Runs `gzip -dc` on bytes: a decoder that shares no code with ours.
public enum GzipTool {
    /// The bytes `gzip -dc` makes of `bytes`; throws when it fails (not gzip, truncated).
    public static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        let directory = try FeedSamples.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("body.gz")
        try Data(bytes).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec gzip -dc \"$0\"", input.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw RawToolError.failed(process.terminationStatus) }
        return [UInt8](data)
    }

    /// `gzip` exited with this status.
    public enum RawToolError: Error {
        /// The exit status.
        case failed(Int32)
    }
}
