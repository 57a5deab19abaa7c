/// A `{{<parent}}…{{/parent}}` tag: renders another template with some of its blocks replaced.
final class ParentNode: Sendable {
    let reference: TemplateReference
    /// Same meaning as ``InclusionNode/indentation``.
    let indentation: String?
    /// Override arguments by block name; the first definition of a name wins.
    let overrides: [String: BlockNode]

    init(reference: TemplateReference, indentation: String?, overrides: [String: BlockNode]) {
        self.reference = reference
        self.indentation = indentation
        self.overrides = overrides
    }
}
