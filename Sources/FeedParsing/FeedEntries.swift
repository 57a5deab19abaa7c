import Feed
import Foundation

/// The rules every format shares when it turns a feed's item into an ``UpstreamEntry``.
enum FeedEntries {
    /// The store's limits on item text.
    static let maxTitle = 500
    static let maxBody = 10_000

    /// An entry, or nil when the item has nothing to show. The id falls back to the link, then
    /// to the title; a missing title to the start of the body, then the link.
    static func make(id: String?, title: String?, body: String, url: String?, date: Date?) -> UpstreamEntry? {
        // A link can be far longer than a title may be (found by fuzz-feed).
        let title =
            title ?? (body.isEmpty ? nil : PlainText.collapse(body, limit: 80))
            ?? url.map { String($0.prefix(maxTitle)) }
        guard let title, !title.isEmpty else { return nil }
        let key = (id?.isEmpty == false ? id : nil) ?? url ?? "title:" + title
        return UpstreamEntry(
            id: String(key.prefix(FeedItem.maxIDLength)), title: title, body: body, url: url, date: date)
    }

    /// `link` resolved against the feed's URL, kept only when it ends up http(s).
    static func absoluteLink(_ link: String, base: URL) -> String? {
        let trimmed = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: base)?.absoluteURL else {
            return nil
        }
        let text = resolved.absoluteString
        return ItemLink.isSafe(text) ? text : nil
    }
}
