import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// An OPML 2.0 subscription list (what every feed reader exports) → subscriptions: every
/// `<outline>` with an `xmlUrl`, at any depth (folders are flattened), in document order,
/// duplicates dropped. Parsed like feeds are: FoundationXML's `XMLParser`, entity declarations
/// refused before parsing, external entities never loaded.
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
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        let collector = Collector()
        parser.delegate = collector
        let finished = parser.parse()
        if let refusal = collector.refusal { throw refusal }
        guard finished, parser.parserError == nil else {
            throw UpstreamError(
                "not well-formed XML (line \(parser.lineNumber), column \(parser.columnNumber))")
        }
        guard collector.root == "opml" else {
            throw UpstreamError("not an OPML document (root <\(collector.root ?? "?")>)")
        }
        guard !collector.subscriptions.isEmpty else {
            throw UpstreamError("no <outline> has an xmlUrl")
        }
        return collector.subscriptions
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var root: String?
        var subscriptions: [Subscription] = []
        var refusal: UpstreamError?
        private var seen = Set<String>()

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            if root == nil { root = elementName }
            guard elementName == "outline",
                let text = attributes["xmlUrl"]?.trimmingCharacters(in: .whitespaces)
            else { return }
            guard let url = URL(string: text), Subscription.isAcceptable(url) else {
                fail(parser, "xmlUrl '\(text.prefix(200))' is not an http:// or https:// URL")
                return
            }
            guard seen.insert(SourceKey.of(url)).inserted else { return }
            guard subscriptions.count < maxSources else {
                fail(parser, "more than \(maxSources) feeds")
                return
            }
            let title = [attributes["title"], attributes["text"]].lazy.compactMap { $0 }
                .map { PlainText.collapse($0, limit: FeedEntries.maxTitle) }.first { !$0.isEmpty }
            subscriptions.append(Subscription(url: url, title: title))
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?)
        {
            fail(parser, "entity declarations are refused")
        }

        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            fail(parser, "the undeclared entity &\(name); is refused")
            return nil
        }

        private func fail(_ parser: XMLParser, _ message: String) {
            if refusal == nil { refusal = UpstreamError(message) }
            parser.abortParsing()
        }
    }
}
