/// A lexical piece of a template: a run of text or one tag.
///
/// Offsets are byte offsets into the template's UTF-8 source. The
/// standalone pass widens tags to whole lines and narrows the neighbouring
/// text, so the tree builder never has to look at lines again.
struct Token {
    enum Kind: Equatable {
        case text
        case variable
        case unescapedVariable
        case section
        case invertedSection
        case close
        case comment
        case partial
        case parent
        case block
        case setDelimiters
    }

    let kind: Kind
    /// Text: first byte (moved forward when a standalone line before it is removed).
    /// Tag: first byte of the opening delimiter.
    var start: Int
    /// One past the last byte (for text, moved back when a standalone line follows).
    var end: Int
    /// The tag's content with the sigil and surrounding whitespace removed.
    let content: String
    /// For an opening tag, the index of its closing tag, and vice versa.
    var partner = -1
    /// Whether the tag sits alone on its line (possibly with its pair) and the line is removed.
    var standalone = false
    /// The first byte this tag accounts for: the line start when it begins a standalone group.
    var outerStart: Int
    /// One past the last byte this tag accounts for: past the newline when it ends a standalone group.
    var outerEnd: Int
    /// The whitespace before a standalone group, used as partial or block indentation.
    var indentation = ""

    init(kind: Kind, start: Int, end: Int, content: String = "") {
        self.kind = kind
        self.start = start
        self.end = end
        self.content = content
        self.outerStart = start
        self.outerEnd = end
    }

    /// The word used for this opening tag in error messages.
    var sectionNoun: String {
        switch kind {
        case .invertedSection: "inverted section"
        case .parent: "parent"
        case .block: "block"
        default: "section"
        }
    }
}
