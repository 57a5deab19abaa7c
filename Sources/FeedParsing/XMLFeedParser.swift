import Foundation
import HTTPClient

/// RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 through ``XMLStreamReader`` (libxml2, recovering), with
/// elements matched by namespace, after ``FeedRepair``'s byte-level repairs. Before parsing, a document declaring entities is refused (they
/// only serve expansion attacks in a feed), as are UTF-16/32 documents, which that scan cannot
/// read. What the parser recovered from is returned with the entries, for the log and `/healthz`.
enum XMLFeedParser {
    /// The entries of an RSS or Atom document, its hints and the recovery summary (nil when the
    /// document was well-formed); `base` resolves relative links, `charset` is `Content-Type`'s.
    static func read(_ data: Data, charset: String?, base: URL) throws(UpstreamError) -> FeedReading {
        try refuseEntityDeclarations(data)
        // A document that declares no encoding and is not UTF-8 is converted first (detected).
        let (readable, encodingNote) = FeedEncoding.readable(data, charset: charset)
        let (repaired, changes) = FeedRepair.repair(readable)
        let collector = FeedEntryCollector(base: base)
        let report = XMLStreamReader.read(repaired, charset: charset, into: collector)
        if let refusal = collector.refusal { throw refusal }
        if let stopped = report.stopped {
            throw UpstreamError("the feed was not read to the end: \(stopped)")
        }
        guard report.sawRoot, let root = collector.root else {
            let reason = report.errors.first.map { " (\($0))" } ?? ""
            throw UpstreamError("the upstream's body is not XML\(reason)")
        }
        guard collector.format != nil else {
            if root.local.lowercased() == "html" {
                throw UpstreamError("the upstream's body is an HTML page, not a feed")
            }
            throw UpstreamError("the XML document is neither RSS nor Atom (root <\(root.local)>)")
        }
        collector.finishOpenEntry()
        let notes = [encodingNote, changes.summary, report.summary].compactMap { $0 }
        return FeedReading(
            entries: collector.entries, recovered: notes.isEmpty ? nil : notes.joined(separator: "; "),
            hints: collector.hints.normalized())
    }

    /// Entity declarations (`<!ENTITY`) only serve expansion attacks in a feed; UTF-16 and
    /// UTF-32 documents are refused too, since the scan reads ASCII-compatible bytes.
    static func refuseEntityDeclarations(_ data: Data) throws(UpstreamError) {
        let head = Array(data.prefix(4))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.contains(0) {
            throw UpstreamError("the feed is UTF-16 or UTF-32 XML, which is not supported")
        }
        // memchr to each `<`: Foundation's Data.range(of:) cost a tenth of a feed's parse.
        let pattern = Array("<!ENTITY".utf8)
        let declaresEntities = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            while index + pattern.count <= bytes.count,
                let found = memchr(raw.baseAddress! + index, 0x3C, bytes.count - index)
            {
                index = raw.baseAddress!.distance(to: found)
                if index + pattern.count <= bytes.count,
                    bytes[index..<(index + pattern.count)].elementsEqual(pattern)
                {
                    return true
                }
                index += 1
            }
            return false
        }
        if declaresEntities {
            throw UpstreamError("the feed declares XML entities (<!ENTITY>), which are refused")
        }
    }
}
