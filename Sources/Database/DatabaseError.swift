import CSQLite

/// A failed SQLite call: the (extended) result code and SQLite's message, with the questions the
/// callers ask of it (is the disk full, was the file not a database, was it busy).
public struct DatabaseError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The extended result code (`SQLITE_IOERR_WRITE`, `SQLITE_FULL`, …).
    public var code: Int32
    /// SQLite's message for the failed call, or ours when there was no connection.
    public var message: String

    /// Creates an error.
    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code (the low byte of the extended one).
    public var primaryCode: Int32 { code & 0xff }

    /// `SQLITE_FULL`: the disk (or `max_page_count`) is full.
    public var isFull: Bool { primaryCode == SQLITE_FULL }
    /// `SQLITE_IOERR` and its extended codes: the operating system failed a read or write.
    public var isIOError: Bool { primaryCode == SQLITE_IOERR }
    /// `SQLITE_BUSY` or `SQLITE_LOCKED`: another connection holds the lock longer than the timeout.
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    /// `SQLITE_NOTADB`: the file is not a SQLite database.
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
    /// `SQLITE_CANTOPEN` or `SQLITE_PERM`/`SQLITE_READONLY`: the file cannot be opened as asked.
    public var isUnopenable: Bool {
        primaryCode == SQLITE_CANTOPEN || primaryCode == SQLITE_PERM || primaryCode == SQLITE_READONLY
    }

    /// The result code's name as SQLite spells it (`SQLITE_FULL`), for logs.
    public var codeName: String {
        switch primaryCode {
        case SQLITE_FULL: "SQLITE_FULL"
        case SQLITE_IOERR: "SQLITE_IOERR"
        case SQLITE_BUSY: "SQLITE_BUSY"
        case SQLITE_LOCKED: "SQLITE_LOCKED"
        case SQLITE_NOTADB: "SQLITE_NOTADB"
        case SQLITE_CORRUPT: "SQLITE_CORRUPT"
        case SQLITE_CANTOPEN: "SQLITE_CANTOPEN"
        case SQLITE_READONLY: "SQLITE_READONLY"
        case SQLITE_PERM: "SQLITE_PERM"
        case SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT"
        default: "SQLite error \(code)"
        }
    }

    /// `message (CODE)`.
    public var description: String { "\(message) (\(codeName))" }
}
