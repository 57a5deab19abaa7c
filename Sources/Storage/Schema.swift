import Database

/// The database's layout and how a file of an older layout is brought up to date.
///
/// The layout's version is SQLite's `user_version`; `application_id` marks the file as
/// pullrefresh's. Each step moves one version up; a file is upgraded in one transaction (all
/// steps or none), so a crash or a failing step leaves it at the version it had.
public struct Schema: Sendable {
    /// One upgrade: the SQL that takes a file from `version - 1` to `version`.
    public struct Step: Sendable {
        /// The version this step produces.
        public var version: Int
        /// The statements, run inside the upgrade's transaction.
        public var sql: String

        /// Creates a step.
        public init(version: Int, sql: String) {
            self.version = version
            self.sql = sql
        }
    }

    /// `application_id` of every pullrefresh database: "PRFR" in ASCII.
    public static let applicationID: Int64 = 0x5052_4652

    /// The steps from an empty file, in order.
    public var steps: [Step]

    /// The version a file has once every step ran.
    public var current: Int { steps.last?.version ?? 0 }

    /// A schema of `steps` (tests add their own); ``standard`` is pullrefresh's.
    public init(steps: [Step]) {
        self.steps = steps
    }

    /// pullrefresh's layout.
    ///
    /// Version 1: `feed` (one row: the epoch, the version and when the feed last reloaded),
    /// `items` (every kept item, ordered like the feed by `created_ms` then `id`), `sources`
    /// (each river source's state, the river's own encoding).
    /// Version 2: the owner (``ownerTables``) and the subscriptions (``subscriptionTables``).
    /// Version 3: items' content and author, and the owner's marks (``readingTables``).
    public static let standard = Schema(steps: [
        Step(
            version: 1,
            sql: """
                CREATE TABLE feed (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    epoch INTEGER NOT NULL,
                    version INTEGER NOT NULL,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE items (
                    id TEXT PRIMARY KEY,
                    source TEXT NOT NULL,
                    title TEXT NOT NULL,
                    body TEXT NOT NULL,
                    url TEXT,
                    image TEXT,
                    created_at REAL NOT NULL,
                    created_ms INTEGER NOT NULL,
                    updated_at REAL,
                    added_in INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX items_newest_first ON items (created_ms DESC, id DESC);
                CREATE TABLE sources (
                    key TEXT PRIMARY KEY,
                    state BLOB NOT NULL
                ) WITHOUT ROWID;
                """),
        Step(version: 2, sql: ownerTables + subscriptionTables),
        Step(version: 3, sql: readingTables),
    ])

    /// Brings the file of `connection` to ``current``: a new file gets every step, an older one
    /// the missing steps, in one transaction. Throws ``StorageError`` for a file of a newer
    /// layout or another application's database, before writing anything.
    func upgrade(_ connection: DatabaseConnection, name: String) throws(StorageError) {
        let version: Int
        do {
            version = Int(try connection.integer("PRAGMA user_version") ?? 0)
            let application = try connection.integer("PRAGMA application_id") ?? 0
            let tables = try connection.integer("SELECT count(*) FROM sqlite_schema") ?? 0
            if application != Self.applicationID, version != 0 || tables != 0 {
                throw StorageError(
                    "database \(name) is a SQLite database of another application; refusing to touch it")
            }
        } catch let error as DatabaseError {
            throw Self.openFailure(error, name: name)
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError("database \(name): \(error)")
        }
        guard version <= current else {
            throw StorageError(
                "database \(name) has schema version \(version), newer than this pullrefresh reads (up to "
                    + "\(current)): run a newer pullrefresh, or start from a backup")
        }
        guard version < current else { return }
        do {
            try connection.transaction { () throws(DatabaseError) in
                for step in steps where step.version > version {
                    try connection.execute(step.sql)
                }
                try connection.execute(
                    "PRAGMA application_id = \(Self.applicationID); PRAGMA user_version = \(current)")
            }
        } catch {
            throw StorageError("database \(name): upgrading from schema version \(version) failed: \(error)")
        }
    }

    /// An error met while opening or first reading `name`, as one line.
    static func openFailure(_ error: DatabaseError, name: String) -> StorageError {
        if error.isNotADatabase {
            return StorageError("database \(name) is not a SQLite database; refusing to touch it")
        }
        if error.isUnopenable {
            return StorageError("database \(name) cannot be opened for reading and writing: \(error)")
        }
        return StorageError("database \(name): \(error)")
    }
}
