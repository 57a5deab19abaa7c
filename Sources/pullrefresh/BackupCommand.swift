import Foundation
import Storage

/// `pullrefresh backup --database FILE OUT`: a consistent copy of a database, made with
/// SQLite's online backup while a server may be running on it.
enum BackupCommand {
    static let usage = "Usage: pullrefresh backup --database FILE OUT"

    static func run(_ arguments: [String]) -> Int32 {
        var database: String?
        var output: String?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-h" || argument == "--help" {
                FileHandle.standardOutput.write(Data((usage + "\n").utf8))
                return 0
            } else if argument == "--database", index + 1 < arguments.count {
                database = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--database=") {
                database = String(argument.dropFirst("--database=".count))
            } else if !argument.hasPrefix("-"), output == nil {
                output = argument
            } else {
                return fail("backup: unexpected argument '\(argument)' (\(usage))", status: 2)
            }
            index += 1
        }
        guard let database, !database.isEmpty, let output, !output.isEmpty else {
            return fail("backup needs the database and where to write the copy (\(usage))", status: 2)
        }
        do {
            try FeedDatabase.backup(from: database, to: output)
        } catch {
            return fail(error.message, status: 1)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
        FileHandle.standardOutput.write(
            Data("pullrefresh: backup of \(database) written to \(output) (\(size) bytes)\n".utf8))
        return 0
    }

    private static func fail(_ message: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("pullrefresh: \(message)\n".utf8))
        return status
    }
}
