/// Items that retention must not remove (the owner's starred items): the river's history and
/// the store's item limit keep them however old they are or however many others arrived.
public protocol KeptItems: Sendable {
    /// Whether the item `id` must be kept.
    func isKept(_ id: String) -> Bool
}
