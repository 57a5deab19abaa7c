public import Database
public import Foundation
import Synchronization

/// The owner's rows (`users`, `sessions`, `tokens`, `server_keys`) in the database file, read
/// and written by the server and by `pullrefresh owner …` at the same time.
///
/// - **No lock of its own.** ``FeedDatabase`` takes the file's ``FileLock`` for the one process
///   that writes items; these records never take it, so the command line works while a server
///   runs on the file. SQLite's WAL mode lets readers go on while one connection writes, and
///   the busy timeout makes a writer wait its turn (a few milliseconds) instead of failing.
/// - **Always the file's present.** Every lookup is a fresh read (a primary-key or unique-index
///   lookup, tens of microseconds), never a copy kept in memory, so a token revoked or a password
///   set by another process counts at the server's next request.
/// - **Two connections.** Lookups (asked on the server's request threads) have a connection of
///   their own, so they never queue behind a write that waits for the lock.
///
/// Secrets never come here in clear: sessions and tokens arrive as their keyed hash, the
/// password as its Argon2id hash (module `Owner` does the hashing).
public final class OwnerRecords: Sendable {
    /// The name of the one key the keyed hash uses (in `server_keys`).
    static let hashKeyName = "owner_secrets"
    /// The owner's name (the schema has room for more users; there is one today).
    public static let ownerName = "owner"
    /// How long a statement waits for another connection's write lock.
    static let busyMilliseconds: Int32 = 5000

    /// The file, as given.
    public let path: String
    private let lookups: Mutex<PreparedStatements>
    private let changes: Mutex<PreparedStatements>

    /// Opens the owner's records in the database at `path`. A missing file is created (mode
    /// 0600) with the whole schema when `creating` (so an owner can be set before the first
    /// start), else refused; an older layout is upgraded. Takes no lock: a server may be running on the file.
    public init(
        path: String, creating: Bool = false, synchronous: DatabaseConnection.Synchronous = .normal,
        schema: Schema = .standard
    ) throws(StorageError) {
        self.path = path
        let exists = FileManager.default.fileExists(atPath: path)
        guard exists || creating else { throw StorageError("database \(path) does not exist") }
        let writer: DatabaseConnection
        let reader: DatabaseConnection
        do {
            writer = try DatabaseConnection(path: path, mode: exists ? .readWrite : .create)
        } catch {
            throw Schema.openFailure(error, name: path)
        }
        if !exists {
            // A file made here holds the password's hash and the key of the token hash: readable
            // by its owner only (SQLite gives its -wal and -shm files the same mode).
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        if writer.isReadOnly {
            throw StorageError("database \(path) is not writable (its permissions or its file system)")
        }
        writer.setBusyTimeout(milliseconds: Self.busyMilliseconds)
        try schema.upgrade(writer, name: path)
        do {
            try writer.useWriteAheadLog(synchronous: synchronous)
            reader = try DatabaseConnection(path: path, mode: .readWrite)
            reader.setBusyTimeout(milliseconds: Self.busyMilliseconds)
        } catch {
            throw StorageError("database \(path): \(error)")
        }
        lookups = Mutex(PreparedStatements(reader))
        changes = Mutex(PreparedStatements(writer))
    }

    /// Runs `body` on the lookup connection; a failure becomes a ``StorageError`` naming the file.
    func lookup<Result: Sendable>(_ body: (PreparedStatements) throws(DatabaseError) -> Result)
        throws(StorageError) -> Result
    {
        do {
            return try lookups.withLock { statements throws(DatabaseError) -> Result in try body(statements) }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    /// Runs `body` in one write transaction on the changing connection.
    func change<Result: Sendable>(_ body: (PreparedStatements) throws(DatabaseError) -> Result)
        throws(StorageError) -> Result
    {
        do {
            return try changes.withLock { statements throws(DatabaseError) -> Result in
                try statements.connection.transaction { () throws(DatabaseError) -> Result in
                    try body(statements)
                }
            }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    // MARK: The owner

    /// The owner, nil while no password was ever set.
    public func owner() throws(StorageError) -> OwnerAccount? {
        try lookup { statements throws(DatabaseError) -> OwnerAccount? in
            let row = try statements(
                "SELECT id, name, password_hash, updated_at FROM users ORDER BY id LIMIT 1")
            defer { row.reset() }
            guard try row.step() else { return nil }
            return OwnerAccount(
                id: row.int64(0), name: row.text(1), passwordHash: row.text(2),
                updatedAt: Date(timeIntervalSince1970: row.double(3)))
        }
    }

    /// Whether an owner exists (one indexed read).
    public func hasOwner() throws(StorageError) -> Bool {
        try lookup { statements throws(DatabaseError) -> Bool in
            let row = try statements("SELECT EXISTS (SELECT 1 FROM users)")
            defer { row.reset() }
            return try row.step() && row.int(0) == 1
        }
    }

    /// Sets the owner's password hash (making the owner on first use) and ends every session
    /// of theirs, in one transaction: a new password signs out every browser. App tokens stay.
    /// Returns whether the owner was new and how many sessions ended.
    @discardableResult
    public func setPassword(hash: String, at now: Date) throws(StorageError) -> (
        created: Bool, sessionsEnded: Int
    ) {
        try change { statements throws(DatabaseError) -> (created: Bool, sessionsEnded: Int) in
            let update = try statements(
                "UPDATE users SET password_hash = ?1, updated_at = ?2 WHERE name = ?3")
            try update.bind(1, hash)
            try update.bind(2, now.timeIntervalSince1970)
            try update.bind(3, Self.ownerName)
            try update.run()
            let created = statements.connection.changes == 0
            if created {
                let insert = try statements(
                    "INSERT INTO users (name, password_hash, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)")
                try insert.bind(1, Self.ownerName)
                try insert.bind(2, hash)
                try insert.bind(3, now.timeIntervalSince1970)
                try insert.run()
            }
            let end = try statements(
                "DELETE FROM sessions WHERE user_id = (SELECT id FROM users WHERE name = ?1)")
            try end.bind(1, Self.ownerName)
            try end.run()
            return (created, statements.connection.changes)
        }
    }

    /// The key of the keyed hash of sessions and tokens: the one in the file, or `make()`'s,
    /// stored first when the file has none. Every process on the file gets the same key (the
    /// insert and the read are one transaction; a key stored by another process first wins).
    public func hashKey(orMake make: () -> [UInt8]) throws(StorageError) -> [UInt8] {
        let candidate = make()
        return try change { statements throws(DatabaseError) -> [UInt8] in
            let insert = try statements("INSERT OR IGNORE INTO server_keys (name, value) VALUES (?1, ?2)")
            try insert.bind(1, Self.hashKeyName)
            try insert.bind(2, bytes: candidate)
            try insert.run()
            let row = try statements("SELECT value FROM server_keys WHERE name = ?1")
            defer { row.reset() }
            try row.bind(1, Self.hashKeyName)
            return try row.step() ? row.bytes(0) : candidate
        }
    }
}
