import Foundation
import HTTPServer
import Mustache

/// Builds Mustache contexts from snapshots and renders the page, the fragment of new items and
/// error pages, all from the templates in `Templates/`.
public struct PageRenderer: Sendable {
    /// The page layout the reader asked for.
    public enum Layout: String, Sendable, CaseIterable {
        /// One item per row.
        case list
        /// Compact cards in columns: two on a phone (under 600 px), three when wider.
        case grid
    }

    private let library: MustacheLibrary
    /// The UI strings.
    public let localizer: Localizer

    /// Template names the app needs; checked at startup so a missing file fails fast.
    public static let requiredTemplates = ["page", "fragment", "error", "partials/item"]

    /// Creates a renderer; throws if a required template is missing.
    public init(library: MustacheLibrary, localizer: Localizer) throws(FeedError) {
        for name in Self.requiredTemplates where library.template(named: name) == nil {
            throw FeedError("template '\(name).mustache' is missing from the templates folder")
        }
        self.library = library
        self.localizer = localizer
    }

    /// Items on a page unless `--page-size` says otherwise.
    public static let defaultPageSize = 30
    /// The largest `--page-size`.
    public static let maxPageSize = 100

    /// The first page for a snapshot: its newest `pageSize` items.
    public func page(
        _ snapshot: FeedSnapshot, language: String, layout: Layout, explicitLanguage: Bool,
        pageSize: Int = PageRenderer.defaultPageSize
    ) throws -> [UInt8] {
        try page(
            snapshot, language: language, layout: layout, explicitLanguage: explicitLanguage,
            pageSize: pageSize,
            before: nil)
    }

    /// The page of the `pageSize` items after `before` (the newest without it), with an
    /// "Older items" link to the next page when there is one.
    func page(
        _ snapshot: FeedSnapshot, language: String, layout: Layout, explicitLanguage: Bool, pageSize: Int,
        before: ItemsQuery.Cursor?
    ) throws -> [UInt8] {
        var returnQuery: [String] = []
        if explicitLanguage { returnQuery.append("lang=\(language)") }
        if layout == .grid { returnQuery.append("layout=grid") }
        let shown = snapshot.page(after: before, limit: pageSize)
        let older: MustacheValue =
            shown.next.map {
                .object(["cursor": .string($0.text), "pageSize": .string(String(pageSize))])
            } ?? .null
        let context: MustacheValue = .object([
            "lang": .string(language),
            "dir": .string(localizer.direction(for: language)),
            "t": strings(language),
            "version": .string(String(snapshot.version)),
            "updatedAt": .string(Timestamp.iso(snapshot.updatedAt)),
            "updatedAtDisplay": .string(Timestamp.display(snapshot.updatedAt)),
            "grid": .bool(layout == .grid),
            "langQuery": explicitLanguage ? .string("lang=\(language)") : .null,
            "returnQuery": returnQuery.isEmpty ? .null : .string(returnQuery.joined(separator: "&")),
            "items": .list(shown.entries.map { Self.itemContext($0.item) }),
            "older": older,
            // An older page with nothing on it is past the end of the feed, not an empty feed.
            "olderPage": .bool(before != nil),
            // The visible end-of-feed line under the last item (hidden while there is more).
            "hasItems": .bool(!shown.entries.isEmpty),
        ])
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096 + shown.entries.count * 400)
        try library.render(context, template: "page", into: &bytes)
        return bytes
    }

    /// The `<li>` elements for `items`, rendered by the same partial as the page.
    public func fragment(_ items: [FeedItem], language: String) throws -> [UInt8] {
        let context: MustacheValue = .object([
            "t": strings(language),
            "added": .list(items.map(Self.itemContext)),
        ])
        var bytes: [UInt8] = []
        try library.render(context, template: "fragment", into: &bytes)
        return bytes
    }

    /// A small HTML error page in the reader's language.
    public func errorPage(status: Int, message: String, language: String) -> [UInt8] {
        let context: MustacheValue = .object([
            "lang": .string(language),
            "dir": .string(localizer.direction(for: language)),
            "t": strings(language),
            "status": .string(String(status)),
            "reason": .string(HTTPStatus.reasonPhrase(status)),
            "message": .string(message),
        ])
        if let text = try? library.render(context, template: "error") {
            return Array(text.utf8)
        }
        // Templates were validated at startup; this is a last resort that still escapes.
        return Array("<!doctype html><title>\(status)</title><p>\(status)</p>".utf8)
    }

    private func strings(_ language: String) -> MustacheValue {
        .object(localizer.strings(for: language).mapValues { .string($0) })
    }

    static func itemContext(_ item: FeedItem) -> MustacheValue {
        var context: [String: MustacheValue] = [
            "id": .string(item.id),
            "title": .string(item.title),
            "body": .string(item.body),
            "createdAt": .string(Timestamp.iso(item.createdAt)),
            "createdAtDisplay": .string(Timestamp.display(item.createdAt)),
        ]
        // Only http(s) links are rendered; anything else (`javascript:`, `data:`) stays text.
        if let url = item.url, ItemLink.isSafe(url) { context["url"] = .string(url) }
        return .object(context)
    }
}
