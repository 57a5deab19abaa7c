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
        var raw = ""
        var firstImage: String?
        var bytes = Array(html.utf8)
        bytes.append(0)
        let options =
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
            | HTML_PARSE_NOWARNING.rawValue
        pullrefresh_xml_silence_thread()
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                htmlReadMemory($0, Int32(buffer.count - 1), nil, "UTF-8", Int32(options))
            }
        }
        if let document {
            defer { xmlFreeDoc(document) }
            walk(document) { node, entering in
                if !entering {
                    if isBlock(node) { raw.append("\n") }
                    return
                }
                switch node.pointee.type {
                case XML_TEXT_NODE:
                    if let content = node.pointee.content { raw += String(cString: content) }
                case XML_ELEMENT_NODE:
                    if isBlock(node) { raw.append("\n") }
                    if firstImage == nil, name(of: node) == "img" { firstImage = attribute("src", of: node) }
                default: break
                }
            }
        }
        let text = oneLine ? collapse(raw, limit: limit) : lines(raw, limit: limit)
        return Reading(text: text, firstImage: firstImage)
    }

    /// `text` with runs of whitespace made one space, trimmed, cut to `limit` characters.
    public static func collapse(_ text: String, limit: Int) -> String {
        var result = ""
        var pendingSpace = false
        var count = 0
        for character in text {
            if isSpace(character) {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace {
                guard count + 1 < limit else { break }
                result.append(" ")
                count += 1
                pendingSpace = false
            }
            guard count < limit else { break }
            result.append(character)
            count += 1
        }
        return result
    }

    /// `text` line by line, each collapsed, blank lines dropped, joined with `\n` and cut to
    /// `limit` characters.
    public static func lines(_ text: String, limit: Int) -> String {
        var result = ""
        var count = 0
        for line in text.split(whereSeparator: \.isNewline) {
            let room = limit - count - (result.isEmpty ? 0 : 1)
            guard room > 0 else { break }
            let collapsed = collapse(String(line), limit: room)
            guard !collapsed.isEmpty else { continue }
            if !result.isEmpty {
                result.append("\n")
                count += 1
            }
            result += collapsed
            count += collapsed.count
        }
        return result
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

    private static func isSpace(_ character: Character) -> Bool {
        character.isWhitespace || character.unicodeScalars.allSatisfy { $0.value < 32 || $0.value == 127 }
    }

    private static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0).lowercased() } ?? ""
    }

    private static func isBlock(_ node: xmlNodePtr) -> Bool {
        node.pointee.type == XML_ELEMENT_NODE && blocks.contains(name(of: node))
    }

    private static func attribute(_ attribute: String, of node: xmlNodePtr) -> String? {
        guard let value = xmlGetProp(node, attribute) else { return nil }
        defer { pullrefresh_xml_free(value) }
        return String(cString: value)
    }

    /// Visits the document's nodes in order without recursion (HTML can nest deeply), calling
    /// `visit(node, true)` on the way in and `visit(node, false)` on the way out of elements;
    /// hidden elements and everything but elements and text are passed over.
    private static func walk(_ document: htmlDocPtr, _ visit: (xmlNodePtr, Bool) -> Void) {
        var node = document.pointee.children
        while let current = node {
            let isElement = current.pointee.type == XML_ELEMENT_NODE
            let descend = isElement && !hidden.contains(name(of: current)) && current.pointee.children != nil
            if isElement && hidden.contains(name(of: current)) {
                // Skipped entirely.
            } else {
                visit(current, true)
            }
            if descend {
                node = current.pointee.children
                continue
            }
            if isElement && !hidden.contains(name(of: current)) { visit(current, false) }
            var climbing = current
            node = nil
            while true {
                if let sibling = climbing.pointee.next {
                    node = sibling
                    break
                }
                guard let parent = climbing.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else {
                    break
                }
                visit(parent, false)
                climbing = parent
            }
        }
    }
}
