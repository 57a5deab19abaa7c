import CLibXML2
import Foundation

/// Reads a page's `<base href>` and `<link>` elements with libxml2's HTML push parser, as a
/// browser's HTML parser would find them (`<link>` in the body too, any case, entities decoded,
/// implied elements), without building a tree.
///
/// Bounded for hostile pages: only the first ``maxBytes`` are read, elements nested deeper than
/// ``maxDepth`` stop the scan, and so does the ``maxLinks``th `<link>`; options `RECOVER`, `NONET`
/// (no external resource is loaded), no error output; no callback defines or loads entities.
enum PageLinkScanner {
    /// The most of a page read: 2 MiB (feeds' `<link>`s are in the `<head>`, at its start).
    static let maxBytes = 2 << 20
    /// The deepest element nesting read.
    static let maxDepth = 256
    /// The most `<link>` elements read (a page with thousands is not a page with a feed list).
    static let maxLinks = 500

    private static let initialized: Void = xmlInitParser()

    /// Scans the first ``maxBytes`` of `data`, decoded from `charset` (the `Content-Type`'s)
    /// when libxml2 names it, else as UTF-8, most of the web's encoding (libxml2's own default
    /// would read UTF-8 as Latin-1). Only titles can suffer from a wrong guess: the `href`s that
    /// matter are ASCII.
    static func scan(_ data: Data, charset: String?) -> PageLinks {
        _ = initialized
        let context = ScanContext()
        var sax = htmlSAXHandler()
        // The magic makes the HTML parser use `serror` rather than printing.
        sax.initialized = XML_SAX2_MAGIC
        sax.startElement = { user, name, attributes in ScanContext.from(user).start(name, attributes) }
        sax.endElement = { user, _ in ScanContext.from(user).end() }
        sax.serror = { _, _ in }
        let user = Unmanaged.passUnretained(context).toOpaque()
        pullrefresh_xml_silence_thread()
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        let encoding = charset.map { xmlParseCharEncoding($0) } ?? XML_CHAR_ENCODING_NONE
        let known = encoding.rawValue > XML_CHAR_ENCODING_NONE.rawValue
        guard
            let parser = htmlCreatePushParserCtxt(
                &sax, user, nil, 0, nil, known ? encoding : XML_CHAR_ENCODING_UTF8)
        else {
            return PageLinks(stopped: "libxml2 could not create an HTML parser")
        }
        defer { htmlFreeParserCtxt(parser) }
        context.parser = parser
        let options =
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue
        htmlCtxtUseOptions(parser, Int32(options))
        PushInput.push(
            data.prefix(maxBytes), while: { context.links.stopped == nil },
            to: { htmlParseChunk(parser, $0, $1, $2) })
        if data.count > maxBytes, context.links.stopped == nil {
            context.links.stopped = "only the first \(maxBytes) bytes of the page were read"
        }
        return withExtendedLifetime(context) { context.links }
    }

    /// The state one scan shares with libxml2's callbacks (their user data).
    private final class ScanContext {
        var parser: htmlParserCtxtPtr?
        var links = PageLinks()
        private var depth = 0
        private var linkElements = 0

        static func from(_ user: UnsafeMutableRawPointer?) -> ScanContext {
            Unmanaged<ScanContext>.fromOpaque(user!).takeUnretainedValue()
        }

        func start(
            _ name: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
        ) {
            guard links.stopped == nil, let name else { return }
            depth += 1
            if depth > PageLinkScanner.maxDepth {
                stop("elements nested deeper than \(PageLinkScanner.maxDepth)")
                return
            }
            // The HTML parser lowercases element and attribute names.
            switch String(cString: name) {
            case "base" where links.base == nil:
                links.base = Self.attributes(attributes)["href"]
            case "link":
                linkElements += 1
                if linkElements > PageLinkScanner.maxLinks {
                    stop("more than \(PageLinkScanner.maxLinks) <link> elements")
                    return
                }
                let values = Self.attributes(attributes)
                guard let rel = values["rel"], let href = values["href"] else { return }
                links.links.append(
                    PageLink(rel: rel, type: values["type"], href: href, title: values["title"]))
            default:
                break
            }
        }

        func end() {
            guard links.stopped == nil else { return }
            depth = max(0, depth - 1)
        }

        private func stop(_ reason: String) {
            links.stopped = reason
            if let parser { xmlStopParser(parser) }
        }

        /// A start tag's attributes (name, value pairs ending with a null name); the first of a
        /// repeated name wins, as in browsers.
        private static func attributes(_ list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> [String:
            String]
        {
            guard let list else { return [:] }
            var values: [String: String] = [:]
            var index = 0
            while let name = list[index] {
                let key = String(cString: name)
                if values[key] == nil { values[key] = list[index + 1].map { String(cString: $0) } ?? "" }
                index += 2
            }
            return values
        }
    }
}
