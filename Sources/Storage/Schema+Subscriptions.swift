extension Schema {
    /// Version 2, the subscriptions' part: every source of the river with the person's title and
    /// folder, and whether the operator's command line or the owner added it (`origin`).
    /// `position` keeps the order sources were added in (the Feeds page's and the OPML export's).
    /// `subscription_counter` holds the next position (never reused); its row exists once a
    /// source was ever added, which ends the demo for good.
    static let subscriptionTables = """
        CREATE TABLE subscriptions (
            key TEXT PRIMARY KEY,
            url TEXT NOT NULL,
            title TEXT,
            folder TEXT,
            origin TEXT NOT NULL CHECK (origin IN ('operator', 'owner')),
            position INTEGER NOT NULL,
            added_at REAL NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX subscriptions_in_order ON subscriptions (position);
        CREATE TABLE subscription_counter (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            next_position INTEGER NOT NULL
        );
        """
}
