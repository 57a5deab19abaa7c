public import Database
public import Feed
import Foundation
import Synchronization

/// The store of record on SQLite: the feed's items with their history, each river source's
/// state, and the epoch and version, in one file that one process owns (``FileLock``).
///
/// - **One writer.** ``write(_:replacing:)`` is called by the ``Feed/FeedStore``'s reload, one
///   at a time: the items that changed, the feed's position and the sources' states of that
///   reload go in one transaction, and the store publishes the snapshot only once it committed.
///   Reads never come here: memory is the read model.
/// - **Source state with the items.** The river saves each source's state (its validators) as
///   it fetches; those saves wait here and are written with the reload's items, so a file never
///   holds a validator for a document whose items it does not hold (a conditional GET would
///   then answer `304` for items never stored). A failed write drops them with the reload.
/// - **Faults.** A write that fails (disk full, I/O error, locked) rolls back whole: the file
///   keeps what was committed, and the reload fails with a ``Feed/FeedError`` that asks the
///   client to retry (`503` + `Retry-After`).
public final class FeedDatabase: FeedRecord, SourceStateStore, Sendable {
    /// What the file held when it was opened.
    public struct Contents: Sendable {
        /// The feed's last snapshot (epoch, version, items newest first), nil for a new file.
        public var snapshot: FeedSnapshot?
        /// How many items the file held beyond `maxItems` and were removed at opening.
        public var trimmed: Int
    }

    /// The writer's connection and its prepared statements, used under one lock.
    private final class Writer {
        let connection: DatabaseConnection
        let upsertItem: Statement
        let deleteItem: Statement
        let saveFeed: Statement
        let saveSource: Statement

        init(_ connection: DatabaseConnection) throws(DatabaseError) {
            self.connection = connection
            upsertItem = try connection.prepare(
                """
                INSERT INTO items (id, source, title, body, url, image, created_at, created_ms, updated_at, added_in)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT (id) DO UPDATE SET source = ?2, title = ?3, body = ?4, url = ?5, image = ?6,
                    created_at = ?7, created_ms = ?8, updated_at = ?9, added_in = ?10
                """)
            deleteItem = try connection.prepare("DELETE FROM items WHERE id = ?1")
            saveFeed = try connection.prepare(
                """
                INSERT INTO feed (id, epoch, version, updated_at) VALUES (1, ?1, ?2, ?3)
                ON CONFLICT (id) DO UPDATE SET epoch = ?1, version = ?2, updated_at = ?3
                """)
            saveSource = try connection.prepare(
                "INSERT INTO sources (key, state) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET state = ?2")
        }
    }

    /// Source states: as committed, and as saved by the river since the last commit.
    private struct States {
        var committed: [String: [UInt8]] = [:]
        var pending: [String: [UInt8]] = [:]
    }

    /// The file, as given.
    public let path: String
    private let lock: FileLock
    private let writer: Mutex<Writer>
    private let states = Mutex(States())
    /// Seconds a client is asked to wait after a failed write.
    public static let retryAfter = 5

    /// Opens (or creates) the database at `path` for this process alone: takes the lock, checks
    /// the file is pullrefresh's and not newer, upgrades an older layout, then turns on WAL.
    /// Every refusal is a ``StorageError`` naming the file, thrown before anything is written
    /// to it.
    public init(
        path: String, synchronous: DatabaseConnection.Synchronous = .normal, schema: Schema = .standard
    ) throws(StorageError) {
        self.path = path
        lock = try FileLock(database: path)
        let connection: DatabaseConnection
        do {
            let exists = FileManager.default.fileExists(atPath: path)
            connection = try DatabaseConnection(path: path, mode: exists ? .readWrite : .create)
        } catch {
            throw Schema.openFailure(error, name: path)
        }
        if connection.isReadOnly {
            throw StorageError("database \(path) is not writable (its permissions or its file system)")
        }
        try schema.upgrade(connection, name: path)
        do {
            try connection.useWriteAheadLog(synchronous: synchronous)
            connection.setBusyTimeout(milliseconds: 2000)
            writer = Mutex(try Writer(connection))
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    /// Reads what the file holds: the feed's snapshot (at most `maxItems` newest items; older
    /// ones are removed from the file, as the store would drop them) and the sources' states.
    public func load(maxItems: Int) throws(StorageError) -> Contents {
        do {
            return try writer.withLock { writer throws(DatabaseError) -> Contents in
                let connection = writer.connection
                let feed = try connection.prepare("SELECT epoch, version, updated_at FROM feed WHERE id = 1")
                let sources = try connection.prepare("SELECT key, state FROM sources")
                var stored: [String: [UInt8]] = [:]
                while try sources.step() { stored[sources.text(0)] = sources.bytes(1) }
                states.withLock { $0.committed = stored }
                guard try feed.step() else { return Contents(snapshot: nil, trimmed: 0) }
                let rows = try connection.prepare(
                    """
                    SELECT id, title, body, url, image, created_at, updated_at, added_in, created_ms FROM items
                    ORDER BY created_ms DESC, id DESC LIMIT ?1
                    """)
                try rows.bind(1, max(1, maxItems))
                var entries: [FeedSnapshot.Entry] = []
                var last: (millis: Int64, id: String)?
                while try rows.step() {
                    let item = FeedItem(
                        id: rows.text(0), title: rows.text(1), body: rows.text(2),
                        createdAt: Date(
                            timeIntervalSince1970: rows.double(5)), url: rows.optionalText(3),
                        image: rows.optionalText(4),
                        updatedAt: rows.optionalDouble(6).map(Date.init(timeIntervalSince1970:)))
                    entries.append(FeedSnapshot.Entry(item: item, addedIn: rows.int(7)))
                    last = (rows.int64(8), item.id)
                }
                var trimmed = 0
                if let last, entries.count == max(1, maxItems) {
                    let beyond = try connection.prepare(
                        "DELETE FROM items WHERE created_ms < ?1 OR (created_ms = ?1 AND id < ?2)")
                    try beyond.bind(1, last.millis)
                    try beyond.bind(2, last.id)
                    try connection.transaction { () throws(DatabaseError) in try beyond.run() }
                    trimmed = connection.changes
                }
                let snapshot = FeedSnapshot(
                    version: feed.int(1), updatedAt: Date(timeIntervalSince1970: feed.double(2)),
                    entries: entries,
                    epoch: feed.int(0))
                return Contents(snapshot: snapshot, trimmed: trimmed)
            }
        } catch {
            throw StorageError("database \(path): reading it failed: \(error)")
        }
    }

    // MARK: FeedRecord

    /// Writes `next` in one transaction: the items that differ from `before` (new, changed,
    /// removed), the feed's epoch, version and time, and the sources' states saved since the
    /// last write.
    public func write(_ next: FeedSnapshot, replacing before: FeedSnapshot) throws(FeedError) {
        var sourceStates: [String: [UInt8]] = [:]
        do {
            try writer.withLock { writer throws(DatabaseError) in
                // Taken under the writer's lock, so a state ``remove(key:)`` forgot is not written.
                sourceStates = states.withLock { $0.pending }
                try writer.connection.transaction { () throws(DatabaseError) in
                    if next.version != before.version || next.epoch != before.epoch {
                        try Self.writeItems(next, replacing: before, with: writer)
                    }
                    try writer.saveFeed.bind(1, next.epoch)
                    try writer.saveFeed.bind(2, next.version)
                    try writer.saveFeed.bind(3, next.updatedAt.timeIntervalSince1970)
                    try writer.saveFeed.run()
                    for (key, state) in sourceStates {
                        try writer.saveSource.bind(1, key)
                        try writer.saveSource.bind(2, bytes: state)
                        try writer.saveSource.run()
                    }
                }
            }
        } catch {
            // What the river saved for this reload goes with it: the next one fetches as if it
            // had not happened (unconditionally where the validators were new).
            states.withLock { $0.pending = [:] }
            throw FeedError(
                "the database \(path) could not be written (\(error.codeName)): \(error.message)",
                retryAfter: Self.retryAfter)
        }
        states.withLock { states in
            for (key, state) in sourceStates {
                states.committed[key] = state
                if states.pending[key] == state { states.pending[key] = nil }
            }
        }
    }

    private static func writeItems(_ next: FeedSnapshot, replacing before: FeedSnapshot, with writer: Writer)
        throws(DatabaseError)
    {
        var previous: [String: FeedSnapshot.Entry] = [:]
        previous.reserveCapacity(before.entries.count)
        for entry in before.entries { previous[entry.item.id] = entry }
        let upsert = writer.upsertItem
        for entry in next.entries {
            if let old = previous.removeValue(forKey: entry.item.id), old == entry { continue }
            let item = entry.item
            try upsert.bind(1, item.id)
            try upsert.bind(2, RiverItemID.key(of: item.id).map(String.init) ?? "")
            try upsert.bind(3, item.title)
            try upsert.bind(4, item.body)
            try upsert.bind(5, item.url)
            try upsert.bind(6, item.image)
            try upsert.bind(7, item.createdAt.timeIntervalSince1970)
            try upsert.bind(8, item.createdAtMillis)
            try upsert.bind(9, item.updatedAt?.timeIntervalSince1970)
            try upsert.bind(10, entry.addedIn)
            try upsert.run()
        }
        for id in previous.keys {
            try writer.deleteItem.bind(1, id)
            try writer.deleteItem.run()
        }
    }

    // MARK: SourceStateStore

    /// Each of `keys`' state: as saved by this reload, else as committed.
    public func load(keys: [String]) async -> [String: [UInt8]] {
        states.withLock { states in
            var found: [String: [UInt8]] = [:]
            found.reserveCapacity(keys.count)
            for key in keys {
                if let state = states.pending[key] ?? states.committed[key] { found[key] = state }
            }
            return found
        }
    }

    /// Keeps a source's state until the reload's items are written with it.
    public func save(key: String, state: [UInt8]) async {
        states.withLock { $0.pending[key] = state }
    }

    /// Forgets a removed source's state: in memory, and its row of `sources` (the subscriptions
    /// table deletes that row with the subscription; this also drops what a fetch in flight
    /// saved since, which the next write would otherwise put back).
    public func remove(key: String) async {
        // A failed delete leaves a row the subscriptions table already deleted with the
        // subscription (same transaction), or one the river ignores: a key that comes back is
        // fresh (its stored state unread until its first fetch saves a new one).
        try? writer.withLock { writer throws(DatabaseError) in
            states.withLock { states in
                states.pending[key] = nil
                states.committed[key] = nil
            }
            let delete = try writer.connection.prepare("DELETE FROM sources WHERE key = ?1")
            try delete.bind(1, key)
            try delete.run()
        }
    }

    // MARK: Maintenance

    /// Copies the write-ahead log into the file and empties it (`wal_checkpoint(TRUNCATE)`), as
    /// a server stops; nil when done, else why not (the log then stays, and is read next time).
    public func checkpoint() -> String? {
        do {
            try writer.withLock { writer throws(DatabaseError) in
                try writer.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
            return nil
        } catch {
            return "checkpoint failed: \(error)"
        }
    }

    /// Runs SQLite's `PRAGMA integrity_check`: "ok", or what it found.
    public func integrityCheck() throws(StorageError) -> String {
        do {
            return try writer.withLock { writer throws(DatabaseError) in
                try writer.connection.text("PRAGMA integrity_check") ?? ""
            }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    /// Caps the file at `pages` pages (`PRAGMA max_page_count`): writes beyond fail with
    /// `SQLITE_FULL`, as on a full disk. For fault tests.
    public func limitPages(_ pages: Int) throws(StorageError) {
        do {
            try writer.withLock { writer throws(DatabaseError) in
                try writer.connection.execute("PRAGMA max_page_count = \(pages)")
            }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }

    /// How many pages the file has now (`PRAGMA page_count`).
    public func pageCount() throws(StorageError) -> Int {
        do {
            return try writer.withLock { writer throws(DatabaseError) in
                Int(try writer.connection.integer("PRAGMA page_count") ?? 0)
            }
        } catch {
            throw StorageError("database \(path): \(error)")
        }
    }
}
