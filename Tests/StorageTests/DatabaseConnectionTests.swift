import Database
import Foundation
import Testing

/// The SQLite wrapper on real files: typed binds and columns, errors with their codes,
/// transactions, the online backup.
@Suite("Database connection")
struct DatabaseConnectionTests {
    @Test func bindsAndColumnsKeepTheirTypesAndBytes() throws {
        let folder = try TemporaryFolder()
        let connection = try DatabaseConnection(path: folder.path("types.sqlite"), mode: .create)
        try connection.execute("CREATE TABLE t (i INTEGER, d REAL, s TEXT, o TEXT, b BLOB, e BLOB)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        let text = "Café 東京 \u{1F600} \"quoted\" \0 nul"
        try insert.bind(1, Int64.max)
        try insert.bind(2, 1_796_000_000.123456)
        try insert.bind(3, text)
        try insert.bind(4, nil as String?)
        try insert.bind(5, bytes: [0, 1, 2, 255])
        try insert.bind(6, bytes: [])
        try insert.run()
        try insert.bind(1, 7)
        try insert.bind(3, "")
        try insert.run()
        let select = try connection.prepare("SELECT i, d, s, o, b, e FROM t ORDER BY rowid")
        #expect(try select.step())
        #expect(select.int64(0) == Int64.max)
        #expect(select.double(1) == 1_796_000_000.123456)
        #expect(select.text(2) == text)
        #expect(select.optionalText(3) == nil)
        #expect(select.bytes(4) == [0, 1, 2, 255])
        #expect(select.bytes(5) == [] && !select.isNull(5))
        #expect(try select.step())
        #expect(select.int(0) == 7 && select.optionalText(2) == "" && select.optionalDouble(1) == nil)
        #expect(try select.step() == false)
    }

    @Test func aFileThatIsNotADatabaseFailsOnTheFirstReadWithItsCode() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("words.txt")
        try Data(String(repeating: "plain words, not a database\n", count: 100).utf8).write(
            to: URL(fileURLWithPath: path))
        let connection = try DatabaseConnection(path: path, mode: .readWrite)
        #expect {
            _ = try connection.integer("PRAGMA user_version")
        } throws: { ($0 as? DatabaseError)?.isNotADatabase == true }
    }

    @Test func aFullDatabaseFailsWithSQLITEFULLAndTheTransactionRollsBack() throws {
        let folder = try TemporaryFolder()
        let connection = try DatabaseConnection(path: folder.path("full.sqlite"), mode: .create)
        try connection.useWriteAheadLog(synchronous: .normal)
        try connection.execute("CREATE TABLE t (x TEXT)")
        try connection.transaction { () throws(DatabaseError) in
            try connection.execute("INSERT INTO t VALUES ('kept')")
        }
        let pages = try #require(try connection.integer("PRAGMA page_count"))
        try connection.execute("PRAGMA max_page_count = \(pages + 2)")
        let insert = try connection.prepare("INSERT INTO t VALUES (?1)")
        var caught: DatabaseError?
        do {
            try connection.transaction { () throws(DatabaseError) in
                for _ in 0..<100 {
                    try insert.bind(1, String(repeating: "x", count: 4000))
                    try insert.run()
                }
            }
        } catch {
            caught = error
        }
        #expect(caught?.isFull == true && caught?.codeName == "SQLITE_FULL")
        #expect(try connection.integer("SELECT count(*) FROM t") == 1)
        // The connection is usable again once there is room.
        try connection.execute("PRAGMA max_page_count = 1000000")
        try connection.transaction { () throws(DatabaseError) in try insert.run() }
        #expect(try connection.integer("SELECT count(*) FROM t") == 2)
    }

    @Test func aBusyWriterTimesOutWithSQLITEBUSY() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("busy.sqlite")
        let first = try DatabaseConnection(path: path, mode: .create)
        try first.useWriteAheadLog(synchronous: .normal)
        try first.execute("CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)")
        let second = try DatabaseConnection(path: path, mode: .readWrite)
        second.setBusyTimeout(milliseconds: 50)
        #expect {
            try second.transaction { () throws(DatabaseError) in }
        } throws: { ($0 as? DatabaseError)?.isBusy == true }
        // A reader does not wait for the writer (WAL): it sees the last commit.
        #expect(try second.integer("SELECT count(*) FROM t") == 0)
        try first.execute("COMMIT")
        #expect(try second.integer("SELECT count(*) FROM t") == 1)
    }

    @Test func theOnlineBackupCopiesWhatWasCommitted() throws {
        let folder = try TemporaryFolder()
        let source = try DatabaseConnection(path: folder.path("source.sqlite"), mode: .create)
        try source.useWriteAheadLog(synchronous: .normal)
        try source.execute("CREATE TABLE t (x); INSERT INTO t VALUES ('a'), ('b')")
        try source.backup(to: folder.path("copy.sqlite"))
        let copy = try DatabaseConnection(path: folder.path("copy.sqlite"), mode: .readOnly)
        #expect(try copy.text("PRAGMA integrity_check") == "ok")
        #expect(try copy.text("SELECT group_concat(x) FROM t") == "a,b")
        #expect(copy.isReadOnly)
    }
}
