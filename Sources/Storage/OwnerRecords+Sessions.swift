import Database
public import Foundation

extension OwnerRecords {
    /// Stores a new session under `idHash` (the keyed hash of its cookie value).
    public func createSession(
        idHash: [UInt8], userID: Int64, csrfToken: String, at now: Date, expiresAt: Date, address: String?
    ) throws(StorageError) {
        try change { statements throws(DatabaseError) in
            let insert = try statements(
                """
                INSERT INTO sessions (id_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, address)
                VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6)
                """)
            try insert.bind(1, bytes: idHash)
            try insert.bind(2, userID)
            try insert.bind(3, csrfToken)
            try insert.bind(4, now.timeIntervalSince1970)
            try insert.bind(5, expiresAt.timeIntervalSince1970)
            try insert.bind(6, address)
            try insert.run()
        }
    }

    /// The session stored under `idHash`, expired or not (the caller decides), nil when none.
    public func session(idHash: [UInt8]) throws(StorageError) -> StoredSession? {
        try lookup { statements throws(DatabaseError) -> StoredSession? in
            let row = try statements(
                """
                SELECT s.user_id, u.name, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at
                FROM sessions AS s JOIN users AS u ON u.id = s.user_id WHERE s.id_hash = ?1
                """)
            defer { row.reset() }
            try row.bind(1, bytes: idHash)
            guard try row.step() else { return nil }
            return StoredSession(
                userID: row.int64(0), userName: row.text(1), csrfToken: row.text(2),
                createdAt: Date(timeIntervalSince1970: row.double(3)),
                lastSeenAt: Date(timeIntervalSince1970: row.double(4)),
                expiresAt: Date(timeIntervalSince1970: row.double(5)))
        }
    }

    /// Records that the session was used at `now` and now ends at `expiresAt`.
    public func touchSession(idHash: [UInt8], at now: Date, expiresAt: Date) throws(StorageError) {
        try change { statements throws(DatabaseError) in
            let update = try statements(
                "UPDATE sessions SET last_seen_at = ?2, expires_at = ?3 WHERE id_hash = ?1")
            try update.bind(1, bytes: idHash)
            try update.bind(2, now.timeIntervalSince1970)
            try update.bind(3, expiresAt.timeIntervalSince1970)
            try update.run()
        }
    }

    /// Deletes the session stored under `idHash` (signing out); nothing when there is none.
    public func deleteSession(idHash: [UInt8]) throws(StorageError) {
        try change { statements throws(DatabaseError) in
            let delete = try statements("DELETE FROM sessions WHERE id_hash = ?1")
            try delete.bind(1, bytes: idHash)
            try delete.run()
        }
    }

    /// Deletes every session (signing out everywhere); returns how many there were.
    @discardableResult
    public func deleteAllSessions() throws(StorageError) -> Int {
        try change { statements throws(DatabaseError) -> Int in
            try statements("DELETE FROM sessions").run()
            return statements.connection.changes
        }
    }

    /// Deletes the sessions that ended before `now`; returns how many.
    @discardableResult
    public func deleteExpiredSessions(before now: Date) throws(StorageError) -> Int {
        try change { statements throws(DatabaseError) -> Int in
            let delete = try statements("DELETE FROM sessions WHERE expires_at <= ?1")
            try delete.bind(1, now.timeIntervalSince1970)
            try delete.run()
            return statements.connection.changes
        }
    }

    /// How many sessions the file holds (expired ones included until they are pruned).
    public func sessionCount() throws(StorageError) -> Int {
        try lookup { statements throws(DatabaseError) -> Int in
            let row = try statements("SELECT count(*) FROM sessions")
            defer { row.reset() }
            return try row.step() ? row.int(0) : 0
        }
    }
}
