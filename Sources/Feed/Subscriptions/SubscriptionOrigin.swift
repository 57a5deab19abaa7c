/// Who put a source in the river: the operator's command line (`--source`, `--sources`), or the
/// owner from the phone (the Feeds page, `/api/sources`, an OPML upload).
public enum SubscriptionOrigin: String, Sendable, Equatable {
    /// The command line: synced in at every start, removed only from there. Fetched from any
    /// address (the operator chose it).
    case commandLine = "operator"
    /// The owner: removed from the phone; fetched from public addresses only unless
    /// `--allow-private-feeds`.
    case owner = "owner"
}
