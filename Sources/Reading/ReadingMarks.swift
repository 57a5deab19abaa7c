/// Every item's marks at one revision of the reading state: immutable, so a page renders from
/// one consistent view without locks.
public struct ReadingMarks: Sendable {
    /// The reading state's revision this view was taken at.
    public let revision: Int
    /// Marks of every item that has any; an item not here is ``ItemMark/unmarked``.
    public let marked: [String: ItemMark]

    /// Creates a view.
    public init(revision: Int, marked: [String: ItemMark]) {
        self.revision = revision
        self.marked = marked
    }

    /// No marks at all, revision 0: what a server without reading state shows.
    public static let none = ReadingMarks(revision: 0, marked: [:])

    /// The marks of the item `id`.
    public subscript(id: String) -> ItemMark { marked[id] ?? .unmarked }
}
