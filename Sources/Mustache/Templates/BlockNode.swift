/// A `{{$name}}…{{/name}}` block: a default in a template, or an override
/// argument when it appears directly inside a parent tag.
final class BlockNode: Sendable {
    let name: String
    /// The default (or override) content, already dedented when the block is standalone.
    let content: [Node]
    /// For a standalone block, the indentation that content gets where the
    /// block is expanded; `nil` for inline blocks, whose content flows with
    /// the surrounding line.
    let siteIndentation: String?

    init(name: String, content: [Node], siteIndentation: String?) {
        self.name = name
        self.content = content
        self.siteIndentation = siteIndentation
    }
}
