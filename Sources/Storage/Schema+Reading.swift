extension Schema {
    /// Version 3: what reading needs.
    ///
    /// - `items.content` (the item's sanitized HTML) and `items.author`: nil for items stored
    ///   before, which show their text.
    /// - `item_marks`: the owner's marks, one row per item ever marked (read, starred, and the
    ///   time of the action that set them, for last-writer-wins). A row goes with its item: the
    ///   trigger deletes it when retention or a removed subscription deletes the item, so a
    ///   stored mark always names a stored item.
    static let readingTables = """
        ALTER TABLE items ADD COLUMN content TEXT;
        ALTER TABLE items ADD COLUMN author TEXT;
        CREATE TABLE item_marks (
            id TEXT PRIMARY KEY,
            read INTEGER NOT NULL DEFAULT 0,
            starred INTEGER NOT NULL DEFAULT 0,
            changed_at REAL
        ) WITHOUT ROWID;
        CREATE TRIGGER items_forget_marks AFTER DELETE ON items BEGIN
            DELETE FROM item_marks WHERE id = OLD.id;
        END;
        """
}
