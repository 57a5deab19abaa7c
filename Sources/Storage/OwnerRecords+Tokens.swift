import Database
public import Foundation

extension OwnerRecords {
    /// Stores a new app token of the owner under `name`, as its keyed `hash`. Refused (a
    /// ``StorageError`` saying why) without an owner or when the owner has a token of that name.
    public func createToken(name: String, hash: [UInt8], at now: Date) throws(StorageError) {
        let outcome = try change { statements throws(DatabaseError) -> String? in
            let owner = try statements("SELECT id FROM users WHERE name = ?1")
            try owner.bind(1, Self.ownerName)
            guard try owner.step() else { return "no owner yet: set a password first" }
            let userID = owner.int64(0)
            owner.reset()
            let existing = try statements("SELECT 1 FROM tokens WHERE user_id = ?1 AND name = ?2")
            defer { existing.reset() }
            try existing.bind(1, userID)
            try existing.bind(2, name)
            if try existing.step() { return "a token named '\(name)' exists already (revoke it first)" }
            let insert = try statements(
                "INSERT INTO tokens (user_id, name, hash, created_at, last_used_at) VALUES (?1, ?2, ?3, ?4, NULL)"
            )
            try insert.bind(1, userID)
            try insert.bind(2, name)
            try insert.bind(3, bytes: hash)
            try insert.bind(4, now.timeIntervalSince1970)
            try insert.run()
            return nil
        }
        if let outcome { throw StorageError(outcome) }
    }

    /// The token stored as `hash`, nil when none (never made, or revoked).
    public func token(hash: [UInt8]) throws(StorageError) -> StoredToken? {
        try lookup { statements throws(DatabaseError) -> StoredToken? in
            let row = try statements(
                "SELECT user_id, name, created_at, last_used_at FROM tokens WHERE hash = ?1")
            defer { row.reset() }
            try row.bind(1, bytes: hash)
            guard try row.step() else { return nil }
            return Self.storedToken(row)
        }
    }

    /// Records that the token stored as `hash` was used at `now`.
    public func touchToken(hash: [UInt8], at now: Date) throws(StorageError) {
        try change { statements throws(DatabaseError) in
            let update = try statements("UPDATE tokens SET last_used_at = ?2 WHERE hash = ?1")
            try update.bind(1, bytes: hash)
            try update.bind(2, now.timeIntervalSince1970)
            try update.run()
        }
    }

    /// Every token, oldest first (names and dates only).
    public func tokens() throws(StorageError) -> [StoredToken] {
        try lookup { statements throws(DatabaseError) -> [StoredToken] in
            let rows = try statements(
                "SELECT user_id, name, created_at, last_used_at FROM tokens ORDER BY created_at, name")
            defer { rows.reset() }
            var found: [StoredToken] = []
            while try rows.step() { found.append(Self.storedToken(rows)) }
            return found
        }
    }

    /// Deletes the owner's token named `name`; false when there is none of that name.
    public func revokeToken(name: String) throws(StorageError) -> Bool {
        try change { statements throws(DatabaseError) -> Bool in
            let delete = try statements(
                "DELETE FROM tokens WHERE name = ?1 AND user_id = (SELECT id FROM users WHERE name = ?2)")
            try delete.bind(1, name)
            try delete.bind(2, Self.ownerName)
            try delete.run()
            return statements.connection.changes > 0
        }
    }

    private static func storedToken(_ row: Statement) -> StoredToken {
        StoredToken(
            userID: row.int64(0), name: row.text(1), createdAt: Date(timeIntervalSince1970: row.double(2)),
            lastUsedAt: row.optionalDouble(3).map(Date.init(timeIntervalSince1970:)))
    }
}
