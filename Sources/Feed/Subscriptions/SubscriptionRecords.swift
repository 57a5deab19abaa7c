/// Where a river's list of sources is kept (the database's `subscriptions` table): what the
/// ``SubscriptionBook`` writes before it answers, and what a river starts from. Every method is
/// one transaction, committed when it returns; a failure throws
/// ``SubscriptionError/Code/storage`` and leaves the list as it was.
public protocol SubscriptionRecords: Sendable {
    /// Every source, in order of ``SubscriptionRecord/position``.
    func all() throws(SubscriptionError) -> [SubscriptionRecord]
    /// Adds `records` (keys not yet kept), each at the next position; returns them as kept.
    func add(_ records: [SubscriptionRecord]) throws(SubscriptionError) -> [SubscriptionRecord]
    /// Changes the title and/or folder of `key` (nil leaves a field as it is; an empty string
    /// clears it); the record as kept now, nil when there is none.
    func update(key: String, title: String?, folder: String?) throws(SubscriptionError) -> SubscriptionRecord?
    /// Removes `key`; false when there was none.
    func remove(key: String) throws(SubscriptionError) -> Bool
    /// Makes the command line's sources the operator's rows: new ones added (an owner's row of
    /// the same feed becomes the operator's), operator rows no longer given removed, the
    /// person's titles and folders of the others kept. Returns every source as kept now.
    func syncCommandLine(_ records: [SubscriptionRecord]) throws(SubscriptionError) -> [SubscriptionRecord]
    /// Whether a source was ever added (even if all were removed since): until then the demo
    /// generator stands in for the river.
    func hasEverHadSources() throws(SubscriptionError) -> Bool
}
