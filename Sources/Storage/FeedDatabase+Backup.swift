import Database
import Foundation

extension FeedDatabase {
    /// Copies the database at `source` to a new file `destination` with SQLite's online backup:
    /// a consistent snapshot taken while a server may be writing to it (no lock is taken, the
    /// server keeps running). The copy is checked with `PRAGMA integrity_check`; a server can
    /// start on it. Refuses to overwrite an existing file.
    public static func backup(from source: String, to destination: String) throws(StorageError) {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StorageError("database \(source) does not exist")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError("\(destination) exists already; the backup never overwrites a file")
        }
        let connection: DatabaseConnection
        do {
            connection = try DatabaseConnection(path: source, mode: .readOnly)
            connection.setBusyTimeout(milliseconds: 5000)
            guard try connection.integer("PRAGMA application_id") == Schema.applicationID else {
                throw StorageError("database \(source) is not a pullrefresh database")
            }
        } catch let error as DatabaseError {
            throw Schema.openFailure(error, name: source)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError("database \(source): \(error)")
        }
        do {
            try connection.backup(to: destination)
            let copy = try DatabaseConnection(path: destination, mode: .readOnly)
            let check = try copy.text("PRAGMA integrity_check") ?? ""
            guard check == "ok" else {
                throw DatabaseError(code: 11, message: "the copy fails its integrity check: \(check)")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw StorageError("backup of \(source) to \(destination) failed: \(error)")
        }
    }
}
