import Database

/// One connection and the statements prepared on it, each compiled on first use and kept:
/// owned by one lock (a statement is not shared between threads).
///
/// `@unchecked Sendable`: it is only ever reached through the `Mutex` of ``OwnerRecords``
/// that holds it, one thread at a time; the closures run under that lock receive it.
final class PreparedStatements: @unchecked Sendable {
    let connection: DatabaseConnection
    private var compiled: [String: Statement] = [:]

    init(_ connection: DatabaseConnection) {
        self.connection = connection
    }

    /// The statement for `sql`, reset and ready to bind.
    func callAsFunction(_ sql: String) throws(DatabaseError) -> Statement {
        if let statement = compiled[sql] {
            statement.reset()
            return statement
        }
        let statement = try connection.prepare(sql)
        compiled[sql] = statement
        return statement
    }
}
