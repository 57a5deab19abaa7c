/// Walks a node tree against a context stack, appending UTF-8 to one output buffer.
///
/// A renderer lives for one render call; the templates it reads are shared
/// and immutable, which is what makes concurrent rendering lock-free.
struct Renderer {
    /// Partials, parents and blocks nest at most this deep. Deeper nesting is
    /// almost certainly unbounded recursion (a partial that includes itself
    /// unconditionally); stopping renders nothing instead of overflowing the stack.
    static let maximumDepth = 100

    private var stack: [MustacheValue]
    private let partials: [String: MustacheTemplate]
    /// Block overrides from enclosing parent tags, outermost first: the
    /// outermost definition wins, as the inheritance spec requires.
    private var overrideFrames: [[String: BlockNode]] = []
    private var depth = 0
    /// Set once nesting reaches ``maximumDepth``: from then on no partial, parent or block is
    /// expanded anywhere in this render. Stopping only the deepest level is not enough: a
    /// template that includes itself twice (`{{>a}}{{>a}}`) would still expand 2^100 times.
    private var recursionCutOff = false

    init(context: MustacheValue, partials: [String: MustacheTemplate]) {
        stack = [context]
        stack.reserveCapacity(16)
        self.partials = partials
    }

    mutating func render(_ nodes: [Node], indentation: String, into output: inout [UInt8]) {
        for node in nodes {
            switch node {
            case .text(let text, let startsLine):
                if indentation.isEmpty {
                    output.append(contentsOf: text)
                } else {
                    Self.appendIndented(text, startsLine: startsLine, indentation: indentation, to: &output)
                }
            case .lineStart:
                output.append(contentsOf: indentation.utf8)
            case .variable(let path, let escaped):
                guard let value = lookup(path) else { continue }
                switch value {
                case .string(let text):
                    if escaped {
                        HTMLEscaper.append(text, to: &output)
                    } else {
                        output.append(contentsOf: text.utf8)
                    }
                case .number(let number):
                    // Number text is digits, signs, `.` and `e`: nothing to escape.
                    output.append(contentsOf: number.text.utf8)
                case .bool(let flag):
                    output.append(contentsOf: (flag ? "true" : "false").utf8)
                case .list, .object, .null:
                    break
                }
            case .section(let path, let children):
                guard let value = lookup(path) else { continue }
                if case .list(let items) = value {
                    for item in items {
                        stack.append(item)
                        render(children, indentation: indentation, into: &output)
                        stack.removeLast()
                    }
                } else if value.isTruthy {
                    stack.append(value)
                    render(children, indentation: indentation, into: &output)
                    stack.removeLast()
                }
            case .invertedSection(let path, let children):
                if !(lookup(path)?.isTruthy ?? false) {
                    render(children, indentation: indentation, into: &output)
                }
            case .partial(let inclusion):
                guard enterNested(), let template = resolve(inclusion.reference) else { continue }
                // An inline partial starts mid-line, so its lines get no indentation at all.
                let nested = inclusion.indentation.map { indentation + $0 } ?? ""
                depth += 1
                render(template.nodes, indentation: nested, into: &output)
                depth -= 1
            case .parent(let parent):
                guard enterNested(), let template = resolve(parent.reference) else { continue }
                let nested = parent.indentation.map { indentation + $0 } ?? ""
                overrideFrames.append(parent.overrides)
                depth += 1
                render(template.nodes, indentation: nested, into: &output)
                depth -= 1
                overrideFrames.removeLast()
            case .block(let block):
                guard enterNested() else { continue }
                var content = block.content
                for frame in overrideFrames {
                    if let override = frame[block.name] {
                        content = override.content
                        break
                    }
                }
                let nested = block.siteIndentation.map { indentation + $0 } ?? indentation
                depth += 1
                render(content, indentation: nested, into: &output)
                depth -= 1
            }
        }
    }

    /// Whether one more level of partial, parent or block may be rendered; trips the cut-off
    /// at ``maximumDepth``.
    private mutating func enterNested() -> Bool {
        if depth >= Self.maximumDepth { recursionCutOff = true }
        return !recursionCutOff
    }

    /// Resolves a dotted name against the context stack.
    ///
    /// Only the first part walks the stack; later parts look inside that one
    /// value, so `a.b` never falls back to an outer `b`.
    private func lookup(_ path: ValuePath) -> MustacheValue? {
        let components = path.components
        guard let first = components.first else { return stack.last }
        var index = stack.count - 1
        var found: MustacheValue?
        while index >= 0 {
            if case .object(let fields) = stack[index], let value = fields[first] {
                found = value
                break
            }
            index -= 1
        }
        guard var value = found else { return nil }
        for component in components.dropFirst() {
            guard case .object(let fields) = value, let next = fields[component] else { return nil }
            value = next
        }
        return value
    }

    private func resolve(_ reference: TemplateReference) -> MustacheTemplate? {
        switch reference {
        case .fixed(let name):
            return partials[name]
        case .dynamic(let path):
            guard case .string(let name) = lookup(path) else { return nil }
            return partials[name]
        }
    }

    /// Appends text, putting `indentation` at the start of every non-empty source line.
    private static func appendIndented(
        _ text: [UInt8], startsLine: Bool, indentation: String, to output: inout [UInt8]
    ) {
        var atLineStart = startsLine
        var runStart = 0
        for (index, byte) in text.enumerated() {
            if atLineStart, byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r") {
                output.append(contentsOf: text[runStart..<index])
                output.append(contentsOf: indentation.utf8)
                runStart = index
            }
            atLineStart = byte == UInt8(ascii: "\n")
        }
        output.append(contentsOf: text[runStart...])
    }
}
