/// Where the reading state lasts (the database's `item_marks` table); a state without one
/// lives in memory and is lost at restart.
///
/// One writer: the ``ReadingBook`` calls ``save(_:)`` one change at a time, and publishes a
/// change only once it was saved.
public protocol ReadingRecord: Sendable {
    /// Every item's stored marks (items without a row are unmarked).
    func loadMarks() throws(ReadingError) -> [String: ItemMark]
    /// Stores `changes` in one transaction (a row for each item; an unmarked item's row may be
    /// deleted): all or nothing.
    func save(_ changes: [MarkChange]) throws(ReadingError)
}
