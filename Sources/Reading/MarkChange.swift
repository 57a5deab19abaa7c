/// One item's new marks, as the event stream and the API report them.
public struct MarkChange: Sendable, Hashable {
    /// The item's id (as in `/api/items`).
    public var id: String
    /// Its marks after the change.
    public var mark: ItemMark

    /// Creates a change.
    public init(id: String, mark: ItemMark) {
        self.id = id
        self.mark = mark
    }
}
