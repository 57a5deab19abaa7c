/// One element of a parsed template tree.
///
/// Trees are immutable after parsing, so any number of threads can render
/// the same template without locks.
enum Node: Sendable {
    /// Literal UTF-8 text, kept as bytes so rendering is a plain copy.
    /// `startsLine` tells the indenting renderer that the text begins a
    /// source line (so a partial's indentation goes in front of it).
    case text([UInt8], startsLine: Bool)
    /// A tag that is not standalone begins a source line; only matters while
    /// rendering an indented partial, where the indentation goes here.
    case lineStart
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}` (verbatim).
    case variable(ValuePath, escaped: Bool)
    /// `{{#name}}…{{/name}}`.
    case section(ValuePath, [Node])
    /// `{{^name}}…{{/name}}`.
    case invertedSection(ValuePath, [Node])
    /// `{{>name}}` or `{{>*name}}`.
    case partial(InclusionNode)
    /// `{{<name}}…{{/name}}` or `{{<*name}}…{{/*name}}`.
    case parent(ParentNode)
    /// `{{$name}}…{{/name}}` outside a parent tag.
    case block(BlockNode)
}
