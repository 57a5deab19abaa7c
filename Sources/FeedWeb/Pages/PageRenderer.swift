public import Feed
import Foundation
import HTTPServer
public import Mustache

/// Builds Mustache contexts from snapshots and renders the page, the fragment of new items and
/// error pages, all from the templates in `Templates/`.
public struct PageRenderer: Sendable {
    /// The page layout the reader asked for.
    public enum Layout: String, Sendable, CaseIterable {
        /// One item per row.
        case list
        /// Compact cards in columns: two on a phone (under 600 px), three when wider.
        case grid

        /// Where an item's picture sits in this layout.
        var thumbnailSlot: ThumbnailSlot { self == .grid ? .grid : .list }
    }

    let library: MustacheLibrary
    /// The UI strings.
    public let localizer: Localizer

    /// Template names the app needs; checked at startup so a missing file fails fast.
    public static let requiredTemplates = ["page", "fragment", "error", "feeds", "partials/item", "signin"]

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

    /// What a river of feeds adds to a page: each item's source, the quiet status line, and
    /// the `?source=` filter.
    struct River {
        var sources: any SourceDirectory
        /// The part shown (`?source=` or `?folder=`), when filtered.
        var only: RiverFilter?
    }

    /// The page of the `pageSize` items after `before` (the newest without it), with an
    /// "Older items" link to the next page when there is one.
    func page(
        _ snapshot: FeedSnapshot, language: String, layout: Layout, explicitLanguage: Bool, pageSize: Int,
        before: ItemsQuery.Cursor?, river: River? = nil
    ) throws -> [UInt8] {
        var returnQuery: [String] = []
        if explicitLanguage { returnQuery.append("lang=\(language)") }
        if layout == .grid { returnQuery.append("layout=grid") }
        // The filter is kept by the older-items link and the Refresh form.
        if let only = river?.only { returnQuery.append(only.query) }
        let shown = snapshot.page(after: before, limit: pageSize)
        let older: MustacheValue =
            shown.next.map {
                .object(["cursor": .string($0.text), "pageSize": .string(String(pageSize))])
            } ?? .null
        let sources = river?.sources
        let context: MustacheValue = .object([
            "lang": .string(language),
            "dir": .string(localizer.direction(for: language)),
            "t": strings(language),
            "sourcesStatus": river.map { sourcesStatus($0.sources.reports, language: language) } ?? .null,
            "only": river?.only.map { .object(["title": .string($0.title), "query": .string($0.query)]) }
                ?? .null,
            "version": .string(String(snapshot.version)),
            "epoch": .string(snapshot.position.tag),
            "updatedAt": .string(Timestamp.iso(snapshot.updatedAt)),
            "updatedAtDisplay": .string(Timestamp.display(snapshot.updatedAt)),
            "grid": .bool(layout == .grid),
            "langQuery": explicitLanguage ? .string("lang=\(language)") : .null,
            "returnQuery": returnQuery.isEmpty ? .null : .string(returnQuery.joined(separator: "&")),
            "items": .list(
                shown.entries.map { Self.itemContext($0.item, slot: layout.thumbnailSlot, sources: sources) }),
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
    public func fragment(_ items: [FeedItem], language: String, sources: (any SourceDirectory)? = nil) throws
        -> [UInt8]
    {
        let context: MustacheValue = .object([
            "t": strings(language),
            "added": .list(items.map { Self.itemContext($0, slot: .list, sources: sources) }),
        ])
        var bytes: [UInt8] = []
        try library.render(context, template: "fragment", into: &bytes)
        return bytes
    }

    /// The Feeds page (`/feeds`) in `language`.
    func feeds(_ page: FeedsPage, language: String) throws -> [UInt8] {
        let context = page.context(
            strings: localizer.strings(for: language), language: language,
            direction: localizer.direction(for: language))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096 + page.reports.count * 1200)
        try library.render(context, template: "feeds", into: &bytes)
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

    func strings(_ language: String) -> MustacheValue {
        .object(localizer.strings(for: language).mapValues { .string($0) })
    }

    /// "2 of 14 feeds could not be reached" and the failing ones, or nil while all answer.
    private func sourcesStatus(_ reports: [SourceReport], language: String) -> MustacheValue {
        let failing = reports.filter(\.isFailing)
        guard !failing.isEmpty else { return .null }
        let template = localizer.strings(for: language)["sourcesFailing"] ?? "{n} of {total}"
        let line = template.replacingOccurrences(of: "{n}", with: String(failing.count))
            .replacingOccurrences(of: "{total}", with: String(reports.count))
        return .object([
            "line": .string(line),
            "failing": .list(
                failing.map {
                    .object(["title": .string($0.label.title), "error": .string($0.lastError ?? "")])
                }),
        ])
    }

    /// An item's fields for the partial. Its picture, if any, is shown through the thumbnail
    /// route (`/img/<id>?w=`) in `slot`'s square: the image's own URL never reaches the page.
    /// With a river, its source's label.
    static func itemContext(
        _ item: FeedItem, slot: ThumbnailSlot = .list, sources: (any SourceDirectory)? = nil
    ) -> MustacheValue {
        var context: [String: MustacheValue] = [
            "id": .string(item.id),
            "title": .string(item.title),
            "body": .string(item.body),
            "createdAt": .string(Timestamp.iso(item.createdAt)),
            "createdAtDisplay": .string(Timestamp.display(item.createdAt)),
        ]
        // Only http(s) links are rendered; anything else (`javascript:`, `data:`) stays text.
        if let url = item.url, ItemLink.isSafe(url) { context["url"] = .string(url) }
        if let image = item.image, ItemLink.isSafe(image) {
            let candidates = slot.candidates
            let srcset = candidates.enumerated().map { density, width in
                "\(ThumbnailSlot.path(itemID: item.id, width: width)) \(density + 1)x"
            }
            context["thumb"] = .object([
                "src": .string(ThumbnailSlot.path(itemID: item.id, width: candidates[0])),
                "srcset": .string(srcset.joined(separator: ", ")),
                "side": .string(String(slot.side)),
            ])
        }
        if let label = sources?.label(forItemID: item.id) {
            var source: [String: MustacheValue] = ["title": .string(label.title), "key": .string(label.key)]
            if let site = label.siteURL, ItemLink.isSafe(site) { source["siteURL"] = .string(site) }
            context["source"] = .object(source)
        }
        return .object(context)
    }
}
