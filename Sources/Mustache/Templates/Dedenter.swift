/// Removes a standalone block's common indentation from its parsed content.
///
/// The block's indentation is re-added where the block is expanded (which may
/// be a parent template with a different indentation), so the stored content
/// must be relative. Nested standalone blocks were dedented by their own,
/// deeper indentation already; only their expansion indentation shrinks.
struct Dedenter {
    let prefix: [UInt8]

    func dedent(_ nodes: [Node]) -> [Node] {
        nodes.map(dedent)
    }

    private func dedent(_ node: Node) -> Node {
        switch node {
        case .text(let text, let startsLine):
            return .text(strip(text, startsLine: startsLine), startsLine: startsLine)
        case .lineStart, .variable:
            return node
        case .section(let path, let children):
            return .section(path, dedent(children))
        case .invertedSection(let path, let children):
            return .invertedSection(path, dedent(children))
        case .partial(let inclusion):
            guard let indentation = inclusion.indentation else { return node }
            return .partial(InclusionNode(reference: inclusion.reference, indentation: strip(indentation)))
        case .parent(let parent):
            return .parent(
                ParentNode(
                    reference: parent.reference, indentation: parent.indentation.map(strip),
                    overrides: parent.overrides.mapValues(dedent)))
        case .block(let block):
            return .block(dedent(block))
        }
    }

    private func dedent(_ block: BlockNode) -> BlockNode {
        if let siteIndentation = block.siteIndentation {
            return BlockNode(
                name: block.name, content: block.content, siteIndentation: strip(siteIndentation))
        }
        return BlockNode(name: block.name, content: dedent(block.content), siteIndentation: nil)
    }

    /// Drops as much of the prefix as a whitespace run matches.
    private func strip(_ indentation: String) -> String {
        let bytes = Array(indentation.utf8)
        let matched = zip(bytes, prefix).prefix(while: { $0 == $1 }).count
        return String(decoding: bytes[matched...], as: UTF8.self)
    }

    /// Strips the prefix at every line start inside the text.
    private func strip(_ bytes: [UInt8], startsLine: Bool) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        var atLineStart = startsLine
        while index < bytes.count {
            if atLineStart {
                var matched = 0
                while matched < prefix.count, index < bytes.count, bytes[index] == prefix[matched] {
                    matched += 1
                    index += 1
                }
                atLineStart = false
                continue
            }
            let byte = bytes[index]
            result.append(byte)
            index += 1
            atLineStart = byte == UInt8(ascii: "\n")
        }
        return result
    }
}
