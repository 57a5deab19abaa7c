import CSQLite

/// A prepared statement with typed binds (1-based, as in SQL) and typed columns (0-based, as
/// SQLite numbers them). Reset it to run it again; it is finalized when released.
///
/// Not shared between threads: the connection's owner prepares, runs and resets it.
public final class Statement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer

    init(_ handle: OpaquePointer, connection: OpaquePointer) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    private func check(_ result: Int32) throws(DatabaseError) {
        guard result == SQLITE_OK else { throw DatabaseConnection.error(connection, result) }
    }

    /// Binds an integer to parameter `index`.
    public func bind(_ index: Int32, _ value: Int64) throws(DatabaseError) {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Binds an integer to parameter `index`.
    public func bind(_ index: Int32, _ value: Int) throws(DatabaseError) {
        try bind(index, Int64(value))
    }

    /// Binds a floating-point number to parameter `index`.
    public func bind(_ index: Int32, _ value: Double) throws(DatabaseError) {
        try check(sqlite3_bind_double(handle, index, value))
    }

    /// Binds text (copied) to parameter `index`; nil binds `NULL`.
    public func bind(_ index: Int32, _ value: String?) throws(DatabaseError) {
        guard let value else { return try bindNull(index) }
        var text = value
        let result = text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else {
                return sqlite3_bind_text(handle, index, "", 0, pullrefresh_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), pullrefresh_sqlite_transient())
            }
        }
        try check(result)
    }

    /// Binds bytes (copied) to parameter `index` as a blob.
    public func bind(_ index: Int32, bytes: [UInt8]) throws(DatabaseError) {
        let result = bytes.withUnsafeBytes { buffer in
            // A zero-length blob still needs a non-null pointer, or SQLite binds NULL.
            sqlite3_bind_blob(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                pullrefresh_sqlite_transient())
        }
        try check(result)
    }

    /// Binds a floating-point number, or `NULL` for nil.
    public func bind(_ index: Int32, _ value: Double?) throws(DatabaseError) {
        guard let value else { return try bindNull(index) }
        try bind(index, value)
    }

    /// Binds `NULL` to parameter `index`.
    public func bindNull(_ index: Int32) throws(DatabaseError) {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Runs one step: true when a row is ready to read, false when the statement is done.
    @discardableResult
    public func step() throws(DatabaseError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw DatabaseConnection.error(connection, result)
        }
    }

    /// Makes the statement ready to run again and clears its binds.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Runs the statement to its end (an insert, update or delete), then resets it.
    public func run() throws(DatabaseError) {
        defer { reset() }
        while try step() {}
    }

    /// Whether column `index` of the current row is `NULL`.
    public func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer.
    public func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as an integer.
    public func int(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// Column `index` as a floating-point number.
    public func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as a floating-point number, nil when `NULL`.
    public func optionalDouble(_ index: Int32) -> Double? {
        isNull(index) ? nil : double(index)
    }

    /// Column `index` as text ("" for `NULL`).
    public func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Column `index` as text, nil when `NULL`.
    public func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` as bytes.
    public func bytes(_ index: Int32) -> [UInt8] {
        guard let pointer = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
