import Feed
import Foundation
import HTTPClient

/// JSON Feed 1.x (`{"version":"https://jsonfeed.org/version/1.1","items":[…]}`) and our own
/// data-file shape (`{"items":[{"id","title","body","createdAt"}]}`, validated like `--data`).
enum JSONFeedParser {
    /// The entries, and for JSON Feed its `title` and `home_page_url` as hints.
    static func read(_ data: Data, base: URL) throws(UpstreamError) -> FeedReading {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw UpstreamError("the feed is not valid JSON")
        }
        guard let top = object as? [String: Any] else {
            throw UpstreamError("the JSON feed must be an object with an \"items\" array")
        }
        if let version = top["version"] as? String, version.hasPrefix("https://jsonfeed.org/version/") {
            return FeedReading(entries: try jsonFeed(top, base: base), hints: hints(top, base: base))
        }
        do {
            return FeedReading(
                entries: try FileSource.parse(data, name: "from the upstream").map {
                    UpstreamEntry(id: $0.id, title: $0.title, body: $0.body, url: $0.url, date: $0.createdAt)
                })
        } catch {
            throw UpstreamError(
                error.message.replacingOccurrences(of: "data file from the upstream", with: "the JSON feed"))
        }
    }

    private static func hints(_ top: [String: Any], base: URL) -> FeedHints {
        var hints = FeedHints()
        if let title = top["title"] as? String {
            let text = PlainText.collapse(title, limit: FeedEntries.maxTitle)
            hints.title = text.isEmpty ? nil : text
        }
        if let home = top["home_page_url"] as? String {
            hints.siteURL = FeedEntries.absoluteLink(home, base: base)
        }
        return hints
    }

    private static func jsonFeed(_ top: [String: Any], base: URL) throws(UpstreamError) -> [UpstreamEntry] {
        guard let items = top["items"] as? [Any] else {
            throw UpstreamError("the JSON Feed has no \"items\" array")
        }
        var entries: [UpstreamEntry] = []
        for (index, raw) in items.enumerated() {
            guard let item = raw as? [String: Any] else {
                throw UpstreamError("the JSON Feed's items[\(index)] is not an object")
            }
            let id: String?
            switch item["id"] {
            case let text as String: id = text
            case let number as NSNumber: id = number.stringValue
            default: id = nil
            }
            let link = (item["url"] as? String) ?? (item["external_url"] as? String)
            let url = link.flatMap { FeedEntries.absoluteLink($0, base: base) }
            let title = (item["title"] as? String).map { PlainText.collapse($0, limit: FeedEntries.maxTitle) }
            let body: String
            if let text = item["content_text"] as? String {
                body = PlainText.collapse(text, limit: FeedEntries.maxBody)
            } else if let html = item["content_html"] as? String {
                body = PlainText.from(html: html, limit: FeedEntries.maxBody)
            } else {
                body =
                    (item["summary"] as? String).map { PlainText.collapse($0, limit: FeedEntries.maxBody) }
                    ?? ""
            }
            let date = ((item["date_published"] as? String) ?? (item["date_modified"] as? String)).flatMap(
                FeedDate.rfc3339)
            if var entry = FeedEntries.make(
                id: id, title: title?.isEmpty == false ? title : nil, body: body, url: url, date: date)
            {
                // `image`, else `banner_image`; resolved and kept only when http(s).
                let picture = (item["image"] as? String) ?? (item["banner_image"] as? String)
                entry.image = picture.flatMap { FeedEntries.absoluteLink($0, base: base) }
                entries.append(entry)
            }
        }
        return entries
    }
}
