import CLibXML2

/// HTML as found in feeds turned into plain text through libxml2's HTML parser (recovering,
/// never on the network, silent): text only, `script`/`style`/`template`/`noscript` and
/// comments dropped, block elements and `<br>` as line breaks, entities decoded once. Item
/// text is data; nothing here is ever rendered as markup.
public enum PlainText {
    /// The text of `html` with its line breaks, at most `limit` characters.
    public static func from(html: String, limit: Int) -> String {
        read(html: html, limit: limit).text
    }

    /// The text of `html` (with line breaks, or collapsed onto `oneLine` for titles), at most
    /// `limit` characters, and its first `<img src>`.
    public static func read(html: String, limit: Int, oneLine: Bool = false) -> Reading {
        var raw: [UInt8] = []
        var firstImage: String?
        if let document = parse(html) {
            defer { xmlFreeDoc(document) }
            walk(document) { step in
                switch step {
                case .text(let content):
                    raw.append(
                        contentsOf: UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
                case .enter(let node, let name):
                    if blocks.contains(name) { raw.append(UInt8(ascii: "\n")) }
                    if firstImage == nil, name == "img" { firstImage = attribute("src", of: node) }
                case .leave(let name):
                    if blocks.contains(name) { raw.append(UInt8(ascii: "\n")) }
                }
            }
        }
        let text = String(decoding: raw, as: UTF8.self)
        return Reading(
            text: oneLine ? collapse(text, limit: limit) : lines(text, limit: limit), firstImage: firstImage)
    }

    /// The HTML tree of `html`, read as UTF-8 without a word on stderr. The thread's structured
    /// error handler is set aside meanwhile: `XMLStreamReader` may have one installed (this
    /// runs inside its callbacks), and HTML's errors are none of its business.
    private static func parse(_ html: String) -> htmlDocPtr? {
        var bytes = Array(html.utf8)
        guard !bytes.isEmpty else { return nil }
        bytes.append(0)
        let options =
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue
        pullrefresh_xml_silence_thread()
        let savedHandler = __xmlStructuredError().pointee
        let savedContext = __xmlStructuredErrorContext().pointee
        xmlSetStructuredErrorFunc(nil, nil)
        defer { xmlSetStructuredErrorFunc(savedContext, savedHandler) }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                htmlReadMemory($0, Int32(buffer.count - 1), nil, "UTF-8", Int32(options))
            }
        }
    }

    /// `text` with runs of whitespace made one space, trimmed, cut to `limit` characters.
    public static func collapse(_ text: String, limit: Int) -> String {
        normalize(text, limit: limit, keepingLines: false)
    }

    /// `text` line by line, each collapsed, blank lines dropped, joined with `\n` and cut to
    /// `limit` characters.
    public static func lines(_ text: String, limit: Int) -> String {
        normalize(text, limit: limit, keepingLines: true)
    }

    /// One pass over the scalars, writing UTF-8 (Unicode properties are looked up only
    /// outside ASCII). The cut counts scalars, so the result never has more than `limit`
    /// characters.
    private static func normalize(_ text: String, limit: Int, keepingLines: Bool) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(min(text.utf8.count, limit * 4))
        var count = 0
        var pending: UInt8?
        for scalar in text.unicodeScalars {
            if keepingLines && isLineBreak(scalar) {
                if count > 0 { pending = UInt8(ascii: "\n") }
                continue
            }
            if isSpace(scalar) {
                if count > 0 && pending == nil { pending = UInt8(ascii: " ") }
                continue
            }
            if let separator = pending {
                guard count + 1 < limit else { break }
                result.append(separator)
                count += 1
                pending = nil
            }
            guard count < limit else { break }
            if scalar.isASCII {
                result.append(UInt8(scalar.value))
            } else {
                UTF8.encode(scalar) { result.append($0) }
            }
            count += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Whitespace and control characters (NO-BREAK SPACE included).
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value <= 0x20 || scalar.value == 0x7F
            || (scalar.value >= 0x80 && (scalar.properties.isWhitespace || scalar.value < 0xA0))
    }

    // MARK: The tree

    /// Elements whose contents never show as text.
    private static let hidden: Set<String> = ["script", "style", "template", "noscript", "head", "title"]

    /// Elements that start and end a line.
    private static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "details", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
        "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tr", "ul",
    ]

    /// An element's name (libxml2's HTML parser has lower-cased it).
    private static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private static func attribute(_ attribute: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, attribute) else { return nil }
        defer { pullrefresh_xml_free(value) }
        return String(cString: value)
    }

    /// One step of ``walk(_:_:)``.
    private enum Step {
        case enter(xmlNodePtr, String)
        case leave(String)
        case text(UnsafePointer<xmlChar>)
    }

    /// Visits the document's elements and text in order without recursion (HTML can nest
    /// deeply). Hidden elements, comments and everything else are passed over with their
    /// contents.
    private static func walk(_ document: htmlDocPtr, _ visit: (Step) -> Void) {
        var node = document.pointee.children
        while let current = node {
            var descend = false
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                let name = name(of: current)
                if !hidden.contains(name) {
                    visit(.enter(current, name))
                    descend = current.pointee.children != nil
                    if !descend { visit(.leave(name)) }
                }
            case XML_TEXT_NODE:
                if let content = current.pointee.content { visit(.text(content)) }
            default: break
            }
            if descend {
                node = current.pointee.children
                continue
            }
            // Next sibling, else climb, leaving each parent, to the first ancestor with one.
            var climbing = current
            node = nil
            while node == nil {
                if let sibling = climbing.pointee.next {
                    node = sibling
                } else if let parent = climbing.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE {
                    visit(.leave(name(of: parent)))
                    climbing = parent
                } else {
                    break
                }
            }
        }
    }
}
