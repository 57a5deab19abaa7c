import Feed
import Foundation

/// The river's sources as documents: `GET /api/sources` (JSON) and `GET /api/sources.opml`
/// (OPML 2.0, what another reader imports), and the `"sources"` part of `/healthz`.
enum SourceDocuments {
    /// `{"sources":[{"key","title","url","siteUrl","folder","ok","lastSuccess","lastError","failingSince","failures","nextFetch","items","origin"}],"folders":[…]}`.
    static func json(_ reports: [SourceReport], folders: [String]) -> [UInt8] {
        var writer = JSONWriter(capacity: 128 + reports.count * 256)
        writer.raw("{\"sources\":[")
        for (position, report) in reports.enumerated() {
            if position > 0 { writer.raw(",") }
            source(report, into: &writer)
        }
        writer.raw("],\"folders\":[")
        for (position, folder) in folders.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.string(folder)
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// One source's object, as in the list: what `POST` and `PATCH /api/sources` answer with.
    static func json(_ report: SourceReport) -> [UInt8] {
        var writer = JSONWriter(capacity: 320)
        source(report, into: &writer)
        return writer.bytes
    }

    private static func source(_ report: SourceReport, into writer: inout JSONWriter) {
        writer.openSource(report.label)
        writer.raw(",\"url\":")
        writer.string(report.feedURL)
        writer.raw(",\"siteUrl\":")
        optional(report.label.siteURL, &writer)
        writer.raw(",\"folder\":")
        optional(report.label.folder, &writer)
        writer.raw(report.isFailing ? ",\"ok\":false" : ",\"ok\":true")
        writer.raw(",\"lastSuccess\":")
        optional(report.lastSuccess.map(Timestamp.iso), &writer)
        writer.raw(",\"lastError\":")
        optional(report.lastError, &writer)
        writer.raw(",\"failingSince\":")
        optional(report.failingSince.map(Timestamp.iso), &writer)
        writer.raw(",\"failures\":")
        writer.number(report.consecutiveFailures)
        writer.raw(",\"nextFetch\":")
        optional(report.nextFetch.map(Timestamp.iso), &writer)
        writer.raw(",\"items\":")
        writer.number(report.items)
        writer.raw(",\"origin\":")
        writer.string(report.origin.rawValue)
        writer.raw("}")
    }

    /// The folders the sources are in, sorted (what a river without a subscription book has).
    static func folders(of reports: [SourceReport]) -> [String] {
        Set(reports.compactMap(\.label.folder)).sorted {
            $0.localizedStandardCompare($1) == .orderedAscending
        }
    }

    /// `,"sources":{"ok":N,"failing":[{"key","title","error","since"}]}` for `/healthz`.
    static func health(_ reports: [SourceReport], into writer: inout JSONWriter) {
        let failing = reports.filter(\.isFailing)
        writer.raw(",\"sources\":{\"ok\":")
        writer.number(reports.count - failing.count)
        writer.raw(",\"failing\":[")
        for (position, report) in failing.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.openSource(report.label)
            writer.raw(",\"error\":")
            writer.string(report.lastError ?? "")
            writer.raw(",\"since\":")
            optional(report.failingSince.map(Timestamp.iso), &writer)
            writer.raw("}")
        }
        writer.raw("]}")
    }

    /// An OPML 2.0 document with one `<outline type="rss">` per source: those in a folder inside
    /// an outline named for it (one level, as readers import them), then those in none.
    static func opml(_ reports: [SourceReport], title: String) -> [UInt8] {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0">
              <head><title>\(xml(title))</title></head>
              <body>

            """
        for folder in folders(of: reports) {
            text += "    <outline text=\"\(xml(folder))\" title=\"\(xml(folder))\">\n"
            for report in reports where report.label.folder == folder {
                text += outline(report, indent: "      ")
            }
            text += "    </outline>\n"
        }
        for report in reports where report.label.folder == nil { text += outline(report, indent: "    ") }
        text += "  </body>\n</opml>\n"
        return Array(text.utf8)
    }

    private static func outline(_ report: SourceReport, indent: String) -> String {
        var text = indent
        text +=
            "<outline type=\"rss\" text=\"\(xml(report.label.title))\" title=\"\(xml(report.label.title))\""
        text += " xmlUrl=\"\(xml(report.feedURL))\""
        if let site = report.label.siteURL { text += " htmlUrl=\"\(xml(site))\"" }
        return text + "/>\n"
    }

    private static func optional(_ value: String?, _ writer: inout JSONWriter) {
        if let value { writer.string(value) } else { writer.null() }
    }

    /// Text escaped for an XML attribute or element (control characters XML 1.0 forbids dropped).
    static func xml(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case "\t", "\n", "\r": escaped += "&#\(scalar.value);"
            default:
                if scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return escaped
    }
}
