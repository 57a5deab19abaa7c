import Feed
public import Foundation
public import HTTPClient

/// An OPML 2.0 subscription list (what every feed reader exports) → subscriptions: every
/// `<outline>` with an `xmlUrl`, at any depth (folders are flattened), in document order,
/// duplicates dropped. Read like feeds are, by ``XMLStreamReader`` (libxml2; entity declarations
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

    /// The subscriptions of an OPML document.
    public static func parse(_ data: Data) throws(UpstreamError) -> [Subscription] {
        try XMLFeedParser.refuseEntityDeclarations(data)
        let collector = Collector()
        let report = XMLStreamReader.read(data, charset: nil, into: collector)
        if let refusal = collector.refusal { throw refusal }
        if let stopped = report.stopped { throw UpstreamError("not read: \(stopped)") }
        if let first = report.errors.first { throw UpstreamError("not well-formed XML (\(first))") }
        guard collector.root == XMLName(local: "opml") else {
            throw UpstreamError("not an OPML document (root <\(collector.root?.local ?? "?")>)")
        }
        guard !collector.subscriptions.isEmpty else {
            throw UpstreamError("no <outline> has an xmlUrl")
        }
        return collector.subscriptions
    }

    private final class Collector: XMLEventHandler {
        var root: XMLName?
        var subscriptions: [Subscription] = []
        /// The first problem with an outline; later outlines are then ignored.
        var refusal: UpstreamError?
        private var seen = Set<String>()

        func startElement(_ name: XMLName, attributes: [XMLAttribute]) {
            if root == nil { root = name }
            guard refusal == nil, name.local == "outline",
                let text = attributes.value(of: "xmlUrl")?.trimmingCharacters(in: .whitespaces)
            else { return }
            guard let url = URL(string: text), Subscription.isAcceptable(url) else {
                refusal = UpstreamError("xmlUrl '\(text.prefix(200))' is not an http:// or https:// URL")
                return
            }
            guard seen.insert(SourceKey.of(url)).inserted else { return }
            guard subscriptions.count < maxSources else {
                refusal = UpstreamError("more than \(maxSources) feeds")
                return
            }
            let title = [attributes.value(of: "title"), attributes.value(of: "text")].lazy.compactMap { $0 }
                .map { PlainText.collapse($0, limit: FeedEntries.maxTitle) }.first { !$0.isEmpty }
            subscriptions.append(Subscription(url: url, title: title))
        }

        func endElement(_ name: XMLName) {}

        func characters(_ text: String) {}
    }
}
