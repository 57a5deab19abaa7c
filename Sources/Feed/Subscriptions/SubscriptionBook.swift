/// The subscriptions a person changes from the phone (the Feeds page, `/api/sources`, an app):
/// what the web surfaces ask of a river whose list of feeds lives in the database.
///
/// Every change is kept (the database) before it is answered, and reaches the river at once: a
/// new source is fetched right away and its items published; a removed one's items leave the
/// river with the next snapshot.
public protocol SubscriptionBook: SourceDirectory {
    /// Subscribes to what `request.address` leads to: a feed, or the feed an HTML page names
    /// (`<link rel="alternate">`, else the usual paths on its origin). Throws with
    /// ``SubscriptionError/Code/severalFeeds`` and the candidates when the page names several.
    func subscribe(_ request: SubscribeRequest) async throws(SubscriptionError) -> SourceReport
    /// Changes a source's title and/or folder (nil leaves it as it is; an empty string clears it).
    func update(key: String, title: String?, folder: String?) async throws(SubscriptionError) -> SourceReport
    /// Removes a source; its items leave the river.
    func unsubscribe(key: String) async throws(SubscriptionError)
    /// Adds every feed of an OPML document (folders kept, one level); feeds already subscribed
    /// are skipped and counted.
    func importOPML(_ document: [UInt8]) async throws(SubscriptionError) -> OPMLImport
    /// The folders in use, sorted for display.
    var folders: [String] { get }
}
