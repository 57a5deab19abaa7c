import Database

/// A connection of its own that takes the file's write lock and holds it, as a feed reload's
/// transaction does, until told to commit.
final class DatabaseHolder: Sendable {
    private let connection: DatabaseConnection

    init(path: String) throws {
        connection = try DatabaseConnection(path: path, mode: .readWrite)
    }

    /// `BEGIN IMMEDIATE` and one write: the lock is held from here.
    func begin() throws {
        try connection.execute("BEGIN IMMEDIATE; DELETE FROM sessions WHERE 0")
    }

    /// Releases the lock.
    func commit() {
        try? connection.execute("COMMIT")
    }
}
