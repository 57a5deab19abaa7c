import Foundation
import Storage

/// `pullrefresh backup --database FILE OUT`: a consistent copy of a database, made with
/// SQLite's online backup while a server may be running on it.
enum BackupCommand {
    static let usage = "Usage: pullrefresh backup --database FILE OUT"

    static func run(_ arguments: [String]) -> Int32 {
        let parsed: SubcommandArguments
        do {
            parsed = try SubcommandArguments(arguments)
        } catch {
            return fail("backup: \(error.message) (\(usage))", status: 2)
        }
        if parsed.wantsHelp {
            FileHandle.standardOutput.write(Data((usage + "\n").utf8))
            return 0
        }
        guard parsed.words.count <= 1 else {
            return fail("backup: unexpected argument '\(parsed.words[1])' (\(usage))", status: 2)
        }
        guard let database = parsed.database, !database.isEmpty, let output = parsed.words.first,
            !output.isEmpty
        else {
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
