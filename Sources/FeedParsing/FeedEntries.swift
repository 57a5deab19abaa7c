import Feed
import Foundation

/// The rules every format shares when it turns a feed's item into an ``UpstreamEntry``.
enum FeedEntries {
    /// The store's limits on item text.
    static let maxTitle = 500
    static let maxBody = 10_000

    /// An entry, or nil when the item has nothing to show. The id falls back to the link, then
    /// to the title. A missing title is made, in this order, from the start of the body, the
    /// file name of the enclosure (`episode-42.mp3`), the link, then the date
    /// (`2026-12-03 14:00 UTC`): a podcast episode with only an enclosure and a date is shown.
    static func make(
        id: String?, title: String?, body: String, url: String?, date: Date?, enclosure: String? = nil
    )
        -> UpstreamEntry?
    {
        // A link can be far longer than a title may be (found by fuzz-feed).
        let title =
            title ?? (body.isEmpty ? nil : PlainText.collapse(body, limit: 80))
            ?? enclosure.flatMap(fileName) ?? url.map { String($0.prefix(maxTitle)) }
            ?? date.map(dateTitle)
        guard let title, !title.isEmpty else { return nil }
        let key = (id?.isEmpty == false ? id : nil) ?? url ?? enclosure ?? "title:" + title
        return UpstreamEntry(
            id: String(key.prefix(FeedItem.maxIDLength)), title: title, body: body, url: url, date: date)
    }

    /// The last path segment of an absolute URL, percent-decoded and collapsed onto one line
    /// (`https://cdn.example/ep%2042.mp3?x=1` → `ep 42.mp3`); nil when there is none.
    static func fileName(_ link: String) -> String? {
        guard let path = URLComponents(string: link)?.path, let last = path.split(separator: "/").last else {
            return nil
        }
        let name = PlainText.collapse(String(last).removingPercentEncoding ?? String(last), limit: maxTitle)
        return name.isEmpty ? nil : name
    }

    /// `date` as a title for an item that has nothing else to show: `2026-12-03 14:00 UTC`.
    static func dateTitle(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return
            "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)) UTC"
    }

    /// `link` resolved against the feed's URL, kept only when it ends up http(s).
    static func absoluteLink(_ link: String, base: URL) -> String? {
        let trimmed = PlainText.trimmed(link)
        guard !trimmed.isEmpty, let resolved = URL(string: trimmed, relativeTo: base)?.absoluteURL else {
            return nil
        }
        let text = resolved.absoluteString
        return ItemLink.isSafe(text) ? text : nil
    }
}
