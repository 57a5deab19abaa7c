import Feed
public import Foundation
public import HTTPClient

/// An OPML 2.0 subscription list (what every feed reader exports) → subscriptions: every
/// `<outline>` with an `xmlUrl`, at any depth, in document order, duplicates dropped; its folder
/// is the title of the nearest outline without an `xmlUrl` around it (one level: deeper folders
/// are not kept). Read like feeds are, by ``XMLStreamReader`` (libxml2; entity declarations
/// refused before parsing, external entities never loaded), but not leniently: the file is the
/// operator's own, so any XML error is reported with its line instead of being recovered from.
public enum SubscriptionList {
    /// The most sources a river takes.
    public static let maxSources = 500
    /// The largest OPML file read: 500 outlines take a few hundred KiB at most.
    public static let maxBytes = 4 << 20

    /// Reads `path`; throws ``UpstreamError`` naming the file and what is wrong with it.
    public static func read(path: String) throws(UpstreamError) -> [Subscription] {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maxBytes else {
                throw UpstreamError("\(path) is larger than \(maxBytes) bytes")
            }
            data = try Data(contentsOf: url)
        } catch let error as UpstreamError {
            throw error
        } catch {
            throw UpstreamError("cannot read \(path): \((error as NSError).localizedDescription)")
        }
        do {
            return try parse(data)
        } catch {
            throw UpstreamError("\(path): \(error.message)")
        }
    }

    /// The subscriptions of an OPML document (the operator's: any bad outline refuses it).
    public static func parse(_ data: Data) throws(UpstreamError) -> [Subscription] {
        let collector = try collect(data, lenient: false)
        guard !collector.subscriptions.isEmpty else {
            throw UpstreamError("no <outline> has an xmlUrl")
        }
        return collector.subscriptions
    }

    /// What an OPML document uploaded by the owner holds: outlines that are not feeds are left
    /// out and named in ``Reading/refused`` instead of refusing the document; only a document
    /// that is not OPML (or not XML) throws.
    public static func read(document data: Data) throws(UpstreamError) -> Reading {
        let collector = try collect(data, lenient: true)
        return Reading(
            subscriptions: collector.subscriptions, duplicates: collector.duplicates,
            refusedCount: collector.refusedCount, refused: collector.refused)
    }

    /// An uploaded document's feeds and what was left out.
    public struct Reading: Sendable, Equatable {
        /// The feeds, in document order, each once (at most ``SubscriptionList/maxSources``).
        public var subscriptions: [Subscription]
        /// Outlines of a feed already listed above them.
        public var duplicates: Int
        /// Outlines left out (not an http(s) URL, beyond the limit).
        public var refusedCount: Int
        /// Why, one line each for the first few.
        public var refused: [String]
    }

    private static func collect(_ data: Data, lenient: Bool) throws(UpstreamError) -> Collector {
        try XMLFeedParser.refuseEntityDeclarations(data)
        let collector = Collector(lenient: lenient)
        let report = XMLStreamReader.read(data, charset: nil, into: collector)
        if let refusal = collector.refusal { throw refusal }
        if let stopped = report.stopped { throw UpstreamError("not read: \(stopped)") }
        if let first = report.errors.first { throw UpstreamError("not well-formed XML (\(first))") }
        guard collector.root == XMLName(local: "opml") else {
            throw UpstreamError("not an OPML document (root <\(collector.root?.local ?? "?")>)")
        }
        return collector
    }

    private final class Collector: XMLEventHandler {
        let lenient: Bool
        var root: XMLName?
        var subscriptions: [Subscription] = []
        /// The first problem with an outline; later outlines are then ignored (not lenient).
        var refusal: UpstreamError?
        /// The outlines left out (lenient), and why for the first few.
        var refusedCount = 0
        var refused: [String] = []
        var duplicates = 0
        private var seen = Set<String>()
        /// The open outlines: the folder title of each that has no `xmlUrl`, nil for a feed's.
        private var open: [String?] = []

        init(lenient: Bool) {
            self.lenient = lenient
        }

        func startElement(_ name: XMLName, attributes: [XMLAttribute]) {
            if root == nil { root = name }
            guard name.local == "outline" else { return }
            let title = [attributes.value(of: "title"), attributes.value(of: "text")].lazy.compactMap { $0 }
                .map { PlainText.collapse($0, limit: FeedEntries.maxTitle) }.first { !$0.isEmpty }
            guard let text = attributes.value(of: "xmlUrl")?.trimmingCharacters(in: .whitespaces) else {
                open.append(title ?? "")
                return
            }
            open.append(nil)
            guard refusal == nil else { return }
            guard let url = URL(string: text), Subscription.isAcceptable(url) else {
                refuse("xmlUrl '\(text.prefix(200))' is not an http:// or https:// URL")
                return
            }
            guard seen.insert(SourceKey.of(url)).inserted else {
                duplicates += 1
                return
            }
            guard subscriptions.count < maxSources else {
                refuse("more than \(maxSources) feeds")
                return
            }
            // The nearest folder around it (outlines of feeds inside feeds are not folders).
            let folder = open.dropLast().last { $0 != nil }.flatMap { $0 }.flatMap { $0.isEmpty ? nil : $0 }
            subscriptions.append(Subscription(url: url, title: title, folder: folder))
        }

        private func refuse(_ reason: String) {
            guard lenient else {
                refusal = UpstreamError(reason)
                return
            }
            refusedCount += 1
            if refused.count < 5, !refused.contains(reason) { refused.append(reason) }
        }

        func endElement(_ name: XMLName) {
            if name.local == "outline", !open.isEmpty { open.removeLast() }
        }

        func characters(_ text: String) {}
    }
}
