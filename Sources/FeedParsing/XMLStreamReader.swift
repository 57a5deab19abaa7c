import CLibXML2
public import Foundation

/// A lenient, namespace-aware XML reader over libxml2's SAX2 push parser: the only code that
/// sees libxml2's pointers (``FeedRepair`` and ``HTMLTextScanner`` only look names up in its
/// HTML entity table).
///
/// Chosen for hostile input (see docs/feeds.md): `RECOVER` keeps reading past errors such as a
/// bare `&` or an undeclared prefix; `NONET` keeps the parser off the network; no callback
/// defines or resolves entities, so DTD entities never exist (no expansion, no `file://`
/// read), and neither `NOENT`, `DTDLOAD` nor `HUGE` is ever set, so libxml2's own limits stay.
/// Nesting deeper than ``maxDepth`` stops the read (a SAX handler has no depth limit of its own)
/// and a text run keeps its first ``maxTextBytes`` bytes.
public enum XMLStreamReader {
    /// The deepest element nesting read; deeper input stops the read.
    public static let maxDepth = 256
    /// The longest text run kept between two tags, in UTF-8 bytes; the rest is dropped.
    public static let maxTextBytes = 1 << 20
    /// How many error messages a report keeps.
    public static let keptErrors = 5

    private static let initialized: Void = xmlInitParser()

    /// Reads `data`, calling `handler` for each element and text run.
    ///
    /// `charset` (e.g. from `Content-Type`) is used only when the document says nothing itself:
    /// no byte order mark and no `encoding=` in its prolog. A declaration inside the document was
    /// written with the bytes, while a server's header is often a default; this is also the
    /// order in which libxml2 agrees across its APIs. An unknown charset name is ignored.
    public static func read(_ data: Data, charset: String?, into handler: some XMLEventHandler)
        -> XMLReadReport
    {
        _ = initialized
        let context = ReadContext(handler: handler)
        var sax = xmlSAXHandler()
        sax.initialized = XML_SAX2_MAGIC
        sax.startElementNs = { user, localName, prefix, uri, _, _, attributeCount, _, attributes in
            ReadContext.from(user).start(localName, prefix, uri, Int(attributeCount), attributes)
        }
        sax.endElementNs = { user, localName, prefix, uri in
            ReadContext.from(user).end(localName, prefix, uri)
        }
        sax.characters = { user, bytes, count in ReadContext.from(user).append(bytes, Int(count)) }
        sax.cdataBlock = { user, bytes, count in ReadContext.from(user).append(bytes, Int(count)) }
        // Only told about the DOCTYPE: no entityDecl, getEntity or reference callback exists, so
        // entities are never defined, and no external subset is ever read.
        sax.internalSubset = { user, name, publicID, systemID in
            ReadContext.from(user).doctype(name, publicID, systemID)
        }
        sax.serror = { user, error in ReadContext.from(user).record(error) }
        let user = Unmanaged.passUnretained(context).toOpaque()
        // Errors raised without a parser context (encoding, I/O) go to this thread's structured
        // handler, else to stderr: count them in the report too, and print nothing.
        pullrefresh_xml_silence_thread()
        xmlSetStructuredErrorFunc(user) { user, error in ReadContext.from(user).record(error) }
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        guard let parser = xmlCreatePushParserCtxt(&sax, user, nil, 0, nil) else {
            context.report.stopped = "libxml2 could not create a parser"
            return context.report
        }
        defer { xmlFreeParserCtxt(parser) }
        context.parser = parser
        var options = XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
        if let charset, let encoder = forcedEncoder(charset, for: data) {
            xmlSwitchToEncoding(parser, encoder)
            options |= XML_PARSE_IGNORE_ENC.rawValue
        }
        xmlCtxtUseOptions(parser, Int32(options))
        PushInput.push(
            data, while: { context.report.stopped == nil },
            to: { xmlParseChunk(parser, $0, $1, $2) })
        context.flush()
        return withExtendedLifetime(context) { context.report }
    }

    /// The encoder for `charset`, when the document has no BOM and no declared encoding.
    private static func forcedEncoder(_ charset: String, for data: Data) -> xmlCharEncodingHandlerPtr? {
        guard !charset.isEmpty, !FeedEncoding.isDeclared(in: data) else { return nil }
        return xmlFindCharEncodingHandler(charset)
    }

    /// The state one read shares with libxml2's callbacks (passed as their user data).
    private final class ReadContext {
        let handler: any XMLEventHandler
        var parser: xmlParserCtxtPtr?
        var report = XMLReadReport()
        private var text: [UInt8] = []
        private var depth = 0

        init(handler: any XMLEventHandler) {
            self.handler = handler
        }

        static func from(_ user: UnsafeMutableRawPointer?) -> ReadContext {
            Unmanaged<ReadContext>.fromOpaque(user!).takeUnretainedValue()
        }

        func start(
            _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?,
            _ uri: UnsafePointer<xmlChar>?, _ attributeCount: Int,
            _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
        ) {
            guard report.stopped == nil else { return }
            report.sawRoot = true
            depth += 1
            if depth > XMLStreamReader.maxDepth {
                stop("elements nested deeper than \(XMLStreamReader.maxDepth)")
                return
            }
            flush()
            var list: [XMLAttribute] = []
            if let attributes {
                list.reserveCapacity(attributeCount)
                // Five pointers per attribute: local name, prefix, URI, value start, value end.
                for index in 0..<attributeCount {
                    let base = attributes + index * 5
                    guard let start = base[3], let end = base[4] else { continue }
                    let raw = String(
                        decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                    // Without entity substitution libxml2 hands `&amp;` over as `&#38;`.
                    let value =
                        raw.utf8.contains(UInt8(ascii: "&"))
                        ? raw.replacingOccurrences(of: "&#38;", with: "&") : raw
                    list.append(XMLAttribute(name: Self.name(base[0], base[1], base[2]), value: value))
                }
            }
            handler.startElement(Self.name(localName, prefix, uri), attributes: list)
        }

        func end(
            _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?,
            _ uri: UnsafePointer<xmlChar>?
        ) {
            guard report.stopped == nil else { return }
            depth -= 1
            flush()
            handler.endElement(Self.name(localName, prefix, uri))
        }

        func append(_ bytes: UnsafePointer<xmlChar>?, _ count: Int) {
            guard report.stopped == nil, let bytes, count > 0 else { return }
            let room = XMLStreamReader.maxTextBytes - text.count
            guard room > 0 else { return }
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: min(count, room)))
        }

        /// Hands the text gathered since the last tag to the handler.
        func flush() {
            guard !text.isEmpty else { return }
            handler.characters(String(decoding: text, as: UTF8.self))
            text.removeAll(keepingCapacity: true)
        }

        func doctype(
            _ name: UnsafePointer<xmlChar>?, _ publicID: UnsafePointer<xmlChar>?,
            _ systemID: UnsafePointer<xmlChar>?
        ) {
            guard report.stopped == nil else { return }
            handler.doctype(
                name: name.map { String(cString: $0) } ?? "", publicID: publicID.map { String(cString: $0) },
                systemID: systemID.map { String(cString: $0) })
        }

        func record(_ error: xmlErrorPtr?) {
            guard let error else { return }
            report.errorCount += 1
            guard report.errors.count < XMLStreamReader.keptErrors else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
            let line =
                "line \(error.pointee.line): " + message.trimmingCharacters(in: .whitespacesAndNewlines)
            report.errors.append(line)
        }

        private func stop(_ reason: String) {
            report.stopped = reason
            text.removeAll()
            if let parser { xmlStopParser(parser) }
        }

        /// A name from libxml2's parts: an unbound prefix stands in for its namespace.
        private static func name(
            _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?,
            _ uri: UnsafePointer<xmlChar>?
        ) -> XMLName {
            let local = localName.map { String(cString: $0) } ?? ""
            if let uri { return XMLName(namespace: String(cString: uri), local: local) }
            return XMLName(namespace: prefix.map { String(cString: $0) } ?? "", local: local)
        }
    }
}
