/// Turns template source into an immutable node tree, in three passes over
/// UTF-8 bytes: lexing (with tag matching, so errors come out in source
/// order), standalone-line detection, and tree building.
struct TemplateParser {
    private let bytes: [UInt8]
    private let templateName: String?
    private var tokens: [Token] = []

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let newline = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    private init(source: String, templateName: String?) {
        self.bytes = Array(source.utf8)
        self.templateName = templateName
    }

    /// Parses `source`, returning the tree and the literal partial and parent names it uses.
    static func parse(
        _ source: String, templateName: String?
    ) throws(MustacheError) -> (nodes: [Node], dependencies: [TemplateDependency]) {
        var parser = TemplateParser(source: source, templateName: templateName)
        try parser.lex()
        parser.markStandaloneLines()
        return parser.buildTree()
    }

    // MARK: - Errors

    private func syntaxError(_ message: String, at offset: Int) -> MustacheError {
        let position = SourcePosition(offset: offset, in: bytes)
        return MustacheError(
            kind: .syntax, message: message, templateName: templateName, line: position.line,
            column: position.column)
    }

    // MARK: - Lexing

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab || byte == newline || byte == carriageReturn
    }

    private func matches(_ pattern: [UInt8], at offset: Int) -> Bool {
        guard offset + pattern.count <= bytes.count else { return false }
        for (index, byte) in pattern.enumerated() where bytes[offset + index] != byte {
            return false
        }
        return true
    }

    private func find(_ pattern: [UInt8], from offset: Int) -> Int? {
        guard let first = pattern.first else { return offset }
        var index = offset
        while index + pattern.count <= bytes.count {
            if bytes[index] == first, matches(pattern, at: index) {
                return index
            }
            index += 1
        }
        return nil
    }

    private func trimmedString(_ range: Range<Int>) -> String {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper, Self.isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, Self.isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return String(decoding: bytes[lower..<upper], as: UTF8.self)
    }

    private mutating func lex() throws(MustacheError) {
        var openDelimiter = Array("{{".utf8)
        var closeDelimiter = Array("}}".utf8)
        var openTags: [Int] = []
        var textStart = 0
        var position = 0
        while position < bytes.count {
            guard bytes[position] == openDelimiter[0], matches(openDelimiter, at: position) else {
                position += 1
                continue
            }
            if textStart < position {
                tokens.append(Token(kind: .text, start: textStart, end: position))
            }
            let tagStart = position
            let afterOpen = position + openDelimiter.count
            let sigil = afterOpen < bytes.count ? bytes[afterOpen] : 0
            let kind: Token.Kind
            var contentStart = afterOpen + 1
            var terminator = closeDelimiter
            switch sigil {
            case UInt8(ascii: "{"):
                kind = .unescapedVariable
                terminator = [UInt8(ascii: "}")] + closeDelimiter
            case UInt8(ascii: "="):
                kind = .setDelimiters
                terminator = [UInt8(ascii: "=")] + closeDelimiter
            case UInt8(ascii: "!"): kind = .comment
            case UInt8(ascii: "&"): kind = .unescapedVariable
            case UInt8(ascii: "#"): kind = .section
            case UInt8(ascii: "^"): kind = .invertedSection
            case UInt8(ascii: "/"): kind = .close
            case UInt8(ascii: ">"): kind = .partial
            case UInt8(ascii: "<"): kind = .parent
            case UInt8(ascii: "$"): kind = .block
            default:
                kind = .variable
                contentStart = afterOpen
            }
            guard let contentEnd = find(terminator, from: contentStart) else {
                let expected = String(decoding: terminator, as: UTF8.self)
                throw syntaxError("unclosed tag: expected '\(expected)'", at: tagStart)
            }
            let tagEnd = contentEnd + terminator.count
            var content = trimmedString(contentStart..<contentEnd)
            if kind == .partial || kind == .parent || kind == .close, content.hasPrefix("*") {
                // `{{> * name }}` and `{{>*name}}` are the same dynamic name.
                content = "*" + content.dropFirst().drop(while: { $0.isWhitespace })
            }
            var token = Token(kind: kind, start: tagStart, end: tagEnd, content: content)
            try validate(token)
            switch kind {
            case .setDelimiters:
                (openDelimiter, closeDelimiter) = try parseDelimiters(content, at: tagStart)
            case .section, .invertedSection, .parent, .block:
                openTags.append(tokens.count)
            case .close:
                guard let openIndex = openTags.popLast() else {
                    throw syntaxError("unexpected closing tag '\(content)': no section is open", at: tagStart)
                }
                let open = tokens[openIndex]
                guard open.content == content else {
                    let opened = SourcePosition(offset: open.start, in: bytes)
                    throw syntaxError(
                        "closing tag '\(content)' does not match \(open.sectionNoun) '\(open.content)'"
                            + " opened at line \(opened.line), column \(opened.column)",
                        at: tagStart)
                }
                token.partner = openIndex
                tokens[openIndex].partner = tokens.count
            default:
                break
            }
            tokens.append(token)
            position = tagEnd
            textStart = tagEnd
        }
        if textStart < bytes.count {
            tokens.append(Token(kind: .text, start: textStart, end: bytes.count))
        }
        if let unclosed = openTags.last {
            let open = tokens[unclosed]
            throw syntaxError("unclosed \(open.sectionNoun) '\(open.content)'", at: open.start)
        }
    }

    private func validate(_ token: Token) throws(MustacheError) {
        let content = token.content
        switch token.kind {
        case .text, .comment, .setDelimiters:
            return
        default:
            break
        }
        guard !content.isEmpty else {
            throw syntaxError("empty tag", at: token.start)
        }
        guard !content.contains(where: { $0.isWhitespace }) else {
            throw syntaxError(
                "invalid tag name '\(content)': names cannot contain whitespace", at: token.start)
        }
        switch token.kind {
        case .variable, .unescapedVariable, .section, .invertedSection:
            guard ValuePath(content) != nil else {
                throw syntaxError("invalid name '\(content)'", at: token.start)
            }
        case .partial, .parent:
            if content.hasPrefix("*"), ValuePath(String(content.dropFirst())) == nil {
                throw syntaxError("invalid dynamic name '\(content)'", at: token.start)
            }
        default:
            break
        }
    }

    private func parseDelimiters(_ content: String, at offset: Int) throws(MustacheError) -> (
        [UInt8], [UInt8]
    ) {
        let parts = content.split(whereSeparator: { $0.isWhitespace })
        guard parts.count == 2, !parts.contains(where: { $0.contains("=") }) else {
            throw syntaxError(
                "invalid delimiters '\(content)': expected two delimiters separated by whitespace, without '='",
                at: offset)
        }
        return (Array(parts[0].utf8), Array(parts[1].utf8))
    }

    // MARK: - Standalone lines

    private static let standaloneKinds: Set<Token.Kind> = [
        .section, .invertedSection, .close, .comment, .partial, .parent, .block, .setDelimiters,
    ]

    /// Finds lines holding nothing but whitespace and a standalone-capable tag
    /// group, and removes those lines from the surrounding text.
    ///
    /// Groups of two adjacent tags count only in the pairs the inheritance spec
    /// treats as one unit: `{{<p}}{{/p}}`, `{{<p}}{{$b}}`, `{{/b}}{{/p}}` and
    /// `{{$b}}{{/b}}` (the last keeps its newline, so an empty block still
    /// leaves its line break).
    private mutating func markStandaloneLines() {
        var first = 0
        while first < tokens.count {
            guard tokens[first].kind != .text else {
                first += 1
                continue
            }
            var next = first + 1
            while next < tokens.count, tokens[next].kind != .text { next += 1 }
            defer { first = next }
            guard let keepsNewline = standaloneGroup(first..<next) else { continue }

            var lineStart = tokens[first].start
            while lineStart > 0, bytes[lineStart - 1] == Self.space || bytes[lineStart - 1] == Self.tab {
                lineStart -= 1
            }
            guard lineStart == 0 || bytes[lineStart - 1] == Self.newline else { continue }
            var newlineStart = tokens[next - 1].end
            while newlineStart < bytes.count,
                bytes[newlineStart] == Self.space || bytes[newlineStart] == Self.tab
            {
                newlineStart += 1
            }
            var lineEnd = newlineStart
            if lineEnd < bytes.count {
                if bytes[lineEnd] == Self.newline {
                    lineEnd += 1
                } else if bytes[lineEnd] == Self.carriageReturn, lineEnd + 1 < bytes.count,
                    bytes[lineEnd + 1] == Self.newline
                {
                    lineEnd += 2
                } else {
                    continue
                }
            }
            let removedEnd = keepsNewline ? newlineStart : lineEnd
            for index in first..<next {
                tokens[index].standalone = true
            }
            tokens[first].outerStart = lineStart
            tokens[first].indentation = String(
                decoding: bytes[lineStart..<tokens[first].start], as: UTF8.self)
            tokens[next - 1].outerEnd = removedEnd
            if first > 0 {
                tokens[first - 1].end = max(tokens[first - 1].start, lineStart)
            }
            if next < tokens.count {
                tokens[next].start = min(tokens[next].end, removedEnd)
            }
        }
    }

    /// `nil` if the tags cannot form a standalone line, otherwise whether the line's newline is kept.
    private func standaloneGroup(_ group: Range<Int>) -> Bool? {
        let first = tokens[group.lowerBound]
        if group.count == 1 {
            return Self.standaloneKinds.contains(first.kind) ? false : nil
        }
        guard group.count == 2 else { return nil }
        let second = tokens[group.lowerBound + 1]
        switch (first.kind, second.kind) {
        case (.parent, .close) where second.partner == group.lowerBound:
            return false
        case (.parent, .block):
            return false
        case (.close, .close)
        where tokens[first.partner].kind == .block && tokens[second.partner].kind == .parent:
            return false
        case (.block, .close) where second.partner == group.lowerBound:
            return true
        default:
            return nil
        }
    }

    // MARK: - Tree building

    private func isLineStart(_ offset: Int) -> Bool {
        offset == 0 || bytes[offset - 1] == Self.newline
    }

    private struct Frame {
        let tokenIndex: Int
        var nodes: [Node] = []
    }

    private func buildTree() -> (nodes: [Node], dependencies: [TemplateDependency]) {
        var frames = [Frame(tokenIndex: -1)]
        var dependencyOffsets: [(name: String, isParent: Bool, offset: Int)] = []
        for (index, token) in tokens.enumerated() {
            if token.kind == .text {
                guard token.start < token.end else { continue }
                let text = Array(bytes[token.start..<token.end])
                let startsLine = isLineStart(token.start)
                // Merging keeps the common render path to one append per run of text.
                if case .text(let previous, let previousStartsLine) = frames[frames.count - 1].nodes.last {
                    frames[frames.count - 1].nodes[frames[frames.count - 1].nodes.count - 1] = .text(
                        previous + text, startsLine: previousStartsLine)
                } else {
                    frames[frames.count - 1].nodes.append(.text(text, startsLine: startsLine))
                }
                continue
            }
            if !token.standalone, isLineStart(token.start) {
                frames[frames.count - 1].nodes.append(.lineStart)
            }
            switch token.kind {
            case .variable, .unescapedVariable:
                // Validated during lexing, so the path always exists.
                let path = ValuePath(token.content) ?? ValuePath(".")!
                frames[frames.count - 1].nodes.append(.variable(path, escaped: token.kind == .variable))
            case .section, .invertedSection, .parent, .block:
                frames.append(Frame(tokenIndex: index))
            case .partial:
                let reference = Self.reference(token.content)
                if case .fixed(let name) = reference {
                    dependencyOffsets.append((name, false, token.start))
                }
                let node = InclusionNode(
                    reference: reference, indentation: token.standalone ? token.indentation : nil)
                frames[frames.count - 1].nodes.append(.partial(node))
            case .close:
                let frame = frames.removeLast()
                let open = tokens[frame.tokenIndex]
                let node = closedNode(open: open, close: token, children: frame.nodes)
                if open.kind == .parent, case .fixed(let name) = Self.reference(open.content) {
                    dependencyOffsets.append((name, true, open.start))
                }
                frames[frames.count - 1].nodes.append(node)
            case .text, .comment, .setDelimiters:
                break
            }
        }
        dependencyOffsets.sort { $0.offset < $1.offset }
        let dependencies = dependencyOffsets.map { entry in
            let position = SourcePosition(offset: entry.offset, in: bytes)
            return TemplateDependency(
                name: entry.name, isParent: entry.isParent, line: position.line, column: position.column)
        }
        return (frames[0].nodes, dependencies)
    }

    private static func reference(_ content: String) -> TemplateReference {
        if content.hasPrefix("*"), let path = ValuePath(String(content.dropFirst())) {
            return .dynamic(path)
        }
        return .fixed(content)
    }

    private func closedNode(open: Token, close: Token, children: [Node]) -> Node {
        // Validated during lexing, so the path always exists.
        let path = ValuePath(open.content) ?? ValuePath(".")!
        switch open.kind {
        case .invertedSection:
            return .invertedSection(path, children)
        case .parent:
            var overrides: [String: BlockNode] = [:]
            for case .block(let block) in children where overrides[block.name] == nil {
                overrides[block.name] = block
            }
            let node = ParentNode(
                reference: Self.reference(open.content),
                indentation: open.standalone ? open.indentation : nil, overrides: overrides)
            return .parent(node)
        case .block:
            return .block(blockNode(open: open, close: close, children: children))
        default:
            return .section(path, children)
        }
    }

    /// Builds a block; a standalone one is dedented by its content's common
    /// indentation, which is re-added (as the expansion site's indentation)
    /// when the block is rendered.
    private func blockNode(open: Token, close: Token, children: [Node]) -> BlockNode {
        guard open.standalone else {
            return BlockNode(name: open.content, content: children, siteIndentation: nil)
        }
        let common = commonIndentation(from: open.outerEnd, to: max(open.outerEnd, close.outerStart))
        if common.isEmpty {
            return BlockNode(name: open.content, content: children, siteIndentation: open.indentation)
        }
        return BlockNode(
            name: open.content, content: Dedenter(prefix: Array(common.utf8)).dedent(children),
            siteIndentation: common)
    }

    /// The longest run of spaces and tabs that starts every non-blank line in the range.
    private func commonIndentation(from start: Int, to end: Int) -> String {
        var common: ArraySlice<UInt8>?
        var lineStart = start
        while lineStart < end {
            var contentStart = lineStart
            while contentStart < end, bytes[contentStart] == Self.space || bytes[contentStart] == Self.tab {
                contentStart += 1
            }
            var lineEnd = contentStart
            var blank = true
            while lineEnd < end, bytes[lineEnd] != Self.newline {
                if !Self.isWhitespace(bytes[lineEnd]) { blank = false }
                lineEnd += 1
            }
            if !blank {
                let prefix = bytes[lineStart..<contentStart]
                if let current = common {
                    common = current.prefix(zip(current, prefix).prefix(while: { $0 == $1 }).count)
                } else {
                    common = prefix
                }
            }
            lineStart = lineEnd + 1
        }
        return String(decoding: common ?? [], as: UTF8.self)
    }
}
