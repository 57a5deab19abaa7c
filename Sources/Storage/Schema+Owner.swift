extension Schema {
    /// Version 2, the owner's part: `users` (one row today, the owner; the table leaves room for
    /// more), their `sessions` and app `tokens`, both stored as hashes only, and `server_keys`
    /// (random keys made once per database: the keyed hash of tokens and sessions).
    static let ownerTables = """
        CREATE TABLE users (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL
        );
        CREATE TABLE sessions (
            id_hash BLOB PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            csrf_token TEXT NOT NULL,
            created_at REAL NOT NULL,
            last_seen_at REAL NOT NULL,
            expires_at REAL NOT NULL,
            address TEXT
        ) WITHOUT ROWID;
        CREATE TABLE tokens (
            user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            hash BLOB NOT NULL UNIQUE,
            created_at REAL NOT NULL,
            last_used_at REAL,
            PRIMARY KEY (user_id, name)
        ) WITHOUT ROWID;
        CREATE TABLE server_keys (
            name TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;
        """
}
