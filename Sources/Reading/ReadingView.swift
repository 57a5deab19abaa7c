/// Which items a page or an API answer lists: `?view=` on `/`, `/api/items`, `/api/refresh`,
/// `/api/events` and search.
public enum ReadingView: String, Sendable, CaseIterable {
    /// Items not read yet.
    case unread
    /// Every kept item (the default).
    case all
    /// Starred items.
    case starred

    /// Whether an item with `mark` belongs to this view.
    public func includes(_ mark: ItemMark) -> Bool {
        switch self {
        case .unread: !mark.read
        case .all: true
        case .starred: mark.starred
        }
    }
}
