import Database
public import Feed
import Foundation
import Synchronization

/// The river's list of sources in the database's `subscriptions` table (``Feed/SubscriptionRecords``):
/// its own connection to the file a ``FeedDatabase`` opened (and so locked and brought to the
/// current layout), every change one `BEGIN IMMEDIATE` transaction, committed before the method
/// returns. Changes are few (a person's taps), so statements are prepared per call.
public final class SubscriptionTable: SubscriptionRecords, Sendable {
    private let connection: Mutex<DatabaseConnection>
    /// The file.
    public let path: String

    /// Opens the table of `database`'s file.
    public init(_ database: FeedDatabase) throws(StorageError) {
        path = database.path
        do {
            let connection = try DatabaseConnection(path: database.path, mode: .readWrite)
            connection.setBusyTimeout(milliseconds: 5000)
            try connection.execute("PRAGMA foreign_keys=ON")
            self.connection = Mutex(connection)
        } catch {
            throw StorageError("database \(database.path): \(error)")
        }
    }

    /// Runs `body` on the connection in one transaction; a database error becomes
    /// ``Feed/SubscriptionError/Code/storage``.
    private func change<Result: Sendable>(_ body: (DatabaseConnection) throws(DatabaseError) -> Result)
        throws(SubscriptionError) -> Result
    {
        do {
            return try connection.withLock { connection throws(DatabaseError) -> Result in
                try connection.transaction { () throws(DatabaseError) -> Result in try body(connection) }
            }
        } catch {
            throw SubscriptionError(
                .storage, "The list of feeds could not be saved (\(error.codeName)); try again in a moment.")
        }
    }

    private static let columns = "key, url, title, folder, origin, position, added_at"

    private static func rows(_ statement: Statement) throws(DatabaseError) -> [SubscriptionRecord] {
        var records: [SubscriptionRecord] = []
        while try statement.step() {
            // A URL that no longer parses cannot have been stored by this program: left out.
            guard let url = URL(string: statement.text(1)) else { continue }
            var record = SubscriptionRecord(
                url: url, title: statement.optionalText(2), folder: statement.optionalText(3),
                origin: SubscriptionOrigin(rawValue: statement.text(4)) ?? .owner, position: statement.int(5),
                addedAt: Date(timeIntervalSince1970: statement.double(6)))
            record.key = statement.text(0)
            records.append(record)
        }
        return records
    }

    private static func selectAll(_ connection: DatabaseConnection) throws(DatabaseError)
        -> [SubscriptionRecord]
    {
        try rows(connection.prepare("SELECT \(columns) FROM subscriptions ORDER BY position"))
    }

    /// Inserts `records` whose keys are not kept yet at the next positions; returns them as kept.
    private static func insert(_ records: [SubscriptionRecord], into connection: DatabaseConnection)
        throws(DatabaseError) -> [SubscriptionRecord]
    {
        guard !records.isEmpty else { return [] }
        var next = Int(
            try connection.integer("SELECT next_position FROM subscription_counter WHERE id = 1") ?? 1)
        let insert = try connection.prepare(
            """
            INSERT INTO subscriptions (\(columns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (key) DO NOTHING
            """)
        var added: [SubscriptionRecord] = []
        for var record in records {
            record.position = next
            try insert.bind(1, record.key)
            try insert.bind(2, record.url.absoluteString)
            try insert.bind(3, record.title)
            try insert.bind(4, record.folder)
            try insert.bind(5, record.origin.rawValue)
            try insert.bind(6, record.position)
            try insert.bind(7, record.addedAt.timeIntervalSince1970)
            try insert.run()
            if connection.changes == 1 {
                added.append(record)
                next += 1
            }
        }
        let counter = try connection.prepare(
            """
            INSERT INTO subscription_counter (id, next_position) VALUES (1, ?1)
            ON CONFLICT (id) DO UPDATE SET next_position = ?1
            """)
        try counter.bind(1, next)
        try counter.run()
        return added
    }

    /// Caps the file at `pages` pages for this table's writes (`PRAGMA max_page_count`, per
    /// connection): beyond, they fail with `SQLITE_FULL`, as on a full disk. For fault tests.
    public func limitPages(_ pages: Int) throws(StorageError) {
        do {
            try connection.withLock { connection throws(DatabaseError) in
                try connection.execute("PRAGMA max_page_count = \(pages)")
            }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    // MARK: SubscriptionRecords

    /// Every source, in order.
    public func all() throws(SubscriptionError) -> [SubscriptionRecord] {
        try change { connection throws(DatabaseError) in try Self.selectAll(connection) }
    }

    /// Adds the records not kept yet; returns those added, with their positions.
    public func add(_ records: [SubscriptionRecord]) throws(SubscriptionError) -> [SubscriptionRecord] {
        try change { connection throws(DatabaseError) in try Self.insert(records, into: connection) }
    }

    /// Changes title and/or folder (nil: as it is; empty: cleared).
    public func update(key: String, title: String?, folder: String?) throws(SubscriptionError)
        -> SubscriptionRecord?
    {
        try change { connection throws(DatabaseError) -> SubscriptionRecord? in
            let update = try connection.prepare(
                """
                UPDATE subscriptions SET
                    title = CASE WHEN ?2 IS NULL THEN title WHEN ?2 = '' THEN NULL ELSE ?2 END,
                    folder = CASE WHEN ?3 IS NULL THEN folder WHEN ?3 = '' THEN NULL ELSE ?3 END
                WHERE key = ?1
                """)
            try update.bind(1, key)
            try update.bind(2, title)
            try update.bind(3, folder)
            try update.run()
            let select = try connection.prepare("SELECT \(Self.columns) FROM subscriptions WHERE key = ?1")
            try select.bind(1, key)
            return try Self.rows(select).first
        }
    }

    /// Removes `key`, and its state row in `sources` (validators, schedule) in the same
    /// transaction: a later subscription to it starts afresh, and the file does not keep growing
    /// with removed feeds.
    public func remove(key: String) throws(SubscriptionError) -> Bool {
        try change { connection throws(DatabaseError) -> Bool in
            let delete = try connection.prepare("DELETE FROM subscriptions WHERE key = ?1")
            try delete.bind(1, key)
            try delete.run()
            let removed = connection.changes == 1
            try Self.deleteState(key, connection)
            return removed
        }
    }

    /// Deletes the `sources` row of `key` (its fetch state, written by ``FeedDatabase``).
    private static func deleteState(_ key: String, _ connection: DatabaseConnection) throws(DatabaseError) {
        let delete = try connection.prepare("DELETE FROM sources WHERE key = ?1")
        try delete.bind(1, key)
        try delete.run()
    }

    /// The command line's sources become the operator's rows (see the protocol).
    public func syncCommandLine(_ records: [SubscriptionRecord]) throws(SubscriptionError)
        -> [SubscriptionRecord]
    {
        try change { connection throws(DatabaseError) -> [SubscriptionRecord] in
            let given = Set(records.map(\.key))
            let kept = try Self.selectAll(connection)
            let delete = try connection.prepare("DELETE FROM subscriptions WHERE key = ?1")
            let adopt = try connection.prepare(
                "UPDATE subscriptions SET origin = 'operator', url = ?2 WHERE key = ?1")
            for record in kept {
                if record.origin == .commandLine, !given.contains(record.key) {
                    try delete.bind(1, record.key)
                    try delete.run()
                    try Self.deleteState(record.key, connection)
                } else if record.origin == .owner, given.contains(record.key) {
                    // The owner's feed is now also the operator's: the operator's from now on.
                    try adopt.bind(1, record.key)
                    try adopt.bind(2, records.first { $0.key == record.key }?.url.absoluteString ?? "")
                    try adopt.run()
                }
            }
            let keptKeys = Set(kept.map(\.key))
            _ = try Self.insert(records.filter { !keptKeys.contains($0.key) }, into: connection)
            return try Self.selectAll(connection)
        }
    }

    /// Whether a source was ever added.
    public func hasEverHadSources() throws(SubscriptionError) -> Bool {
        try change { connection throws(DatabaseError) -> Bool in
            try connection.integer("SELECT count(*) FROM subscription_counter") ?? 0 > 0
        }
    }
}
