/// What one write to the reading state changed: published to open pages (the event stream's
/// `marks` event) after it was stored.
public struct ReadingChange: Sendable, Equatable {
    /// The state's revision after the change (``ReadingBook/revision``).
    public var revision: Int
    /// Every item whose marks changed, with its new marks (items whose marks were already as
    /// asked are left out; a change with none is not published).
    public var changes: [MarkChange]

    /// Creates a change.
    public init(revision: Int, changes: [MarkChange]) {
        self.revision = revision
        self.changes = changes
    }
}
