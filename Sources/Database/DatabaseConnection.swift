import CSQLite

/// One connection to a SQLite database file: opened with explicit flags, tuned by pragmas, with
/// prepared statements, transactions and the online backup. This module alone sees SQLite's
/// pointers.
///
/// SQLite on Debian is built `THREADSAFE=1` and every connection is opened `FULLMUTEX`
/// (serialized), so calls from different threads are safe; the callers still keep one owner
/// per connection (one writer), since a transaction belongs to the connection, not a thread.
public final class DatabaseConnection: @unchecked Sendable {
    /// How the file is opened.
    public enum Mode: Sendable {
        /// Read and write, creating the file when it does not exist.
        case create
        /// Read and write an existing file.
        case readWrite
        /// Read only.
        case readOnly
    }

    /// `synchronous` in WAL mode: when a commit waits for the disk.
    public enum Synchronous: String, Sendable {
        /// A commit is durable against process crashes; the last commits may be lost on power
        /// loss (the WAL is synced at checkpoints, not at each commit).
        case normal = "NORMAL"
        /// Every commit waits for the WAL to reach the disk: durable against power loss too.
        case full = "FULL"
    }

    private let handle: OpaquePointer
    /// The file as opened.
    public let path: String

    /// Opens `path`. Nothing is written by opening: a file that is not a database is found by
    /// the first read (``DatabaseError/isNotADatabase``).
    public init(path: String, mode: Mode) throws(DatabaseError) {
        var flags = SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        switch mode {
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let error =
                opened.map { Self.error($0, result) }
                ?? DatabaseError(code: result, message: String(cString: sqlite3_errstr(result)))
            sqlite3_close_v2(opened)
            throw error
        }
        handle = opened
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// The error SQLite holds for `connection` after `result`.
    static func error(_ connection: OpaquePointer, _ result: Int32) -> DatabaseError {
        let extended = sqlite3_extended_errcode(connection)
        let code = extended & 0xff == result & 0xff ? extended : result
        return DatabaseError(code: code, message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Whether the file was opened read-only (asked for, or the operating system refused writes).
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// How long a statement waits for another connection's lock before ``DatabaseError/isBusy``.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one or more statements that return nothing (DDL, pragmas, `BEGIN`/`COMMIT`).
    public func execute(_ sql: String) throws(DatabaseError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard result == SQLITE_OK else {
            var error = Self.error(handle, result)
            if let message { error.message = String(cString: message) }
            throw error
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw Self.error(handle, result) }
        return Statement(statement, connection: handle)
    }

    /// The first column of the first row of `sql` as an integer, nil without a row.
    public func integer(_ sql: String) throws(DatabaseError) -> Int64? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int64(0) : nil
    }

    /// The first column of the first row of `sql` as text, nil without a row.
    public func text(_ sql: String) throws(DatabaseError) -> String? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.text(0) : nil
    }

    /// WAL journaling (readers never wait for the writer), the given `synchronous`, and foreign
    /// keys on. Writes the file's header: call it once the file is known to be a database.
    public func useWriteAheadLog(synchronous: Synchronous) throws(DatabaseError) {
        let mode = try text("PRAGMA journal_mode=WAL")
        guard mode?.lowercased() == "wal" else {
            throw DatabaseError(code: SQLITE_ERROR, message: "the journal mode stayed \(mode ?? "unknown")")
        }
        try execute("PRAGMA synchronous=\(synchronous.rawValue); PRAGMA foreign_keys=ON")
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (the write lock is taken at the start, so
    /// a busy database fails here rather than half-way): committed when it returns, rolled back
    /// when it or the commit throws.
    public func transaction<Result>(_ body: () throws(DatabaseError) -> Result) throws(DatabaseError)
        -> Result
    {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has rolled back already.
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    /// Rows changed by the last insert, update or delete.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Copies the whole database to a new file at `destination` with SQLite's online backup, a
    /// consistent snapshot even while another process writes: `pagesPerStep` pages at a time,
    /// pausing `pauseMilliseconds` between steps so the writer is not held back.
    public func backup(to destination: String, pagesPerStep: Int32 = 1024, pauseMilliseconds: Int32 = 5)
        throws(DatabaseError)
    {
        let target = try DatabaseConnection(path: destination, mode: .create)
        guard let backup = sqlite3_backup_init(target.handle, "main", handle, "main") else {
            throw Self.error(target.handle, sqlite3_errcode(target.handle))
        }
        var result = SQLITE_OK
        repeat {
            result = sqlite3_backup_step(backup, pagesPerStep)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED || result == SQLITE_OK {
                sqlite3_sleep(pauseMilliseconds)
            }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE, finished == SQLITE_OK else {
            throw Self.error(target.handle, result == SQLITE_DONE ? finished : result)
        }
    }
}
