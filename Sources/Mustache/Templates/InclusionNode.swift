/// A `{{>partial}}` tag.
final class InclusionNode: Sendable {
    let reference: TemplateReference
    /// The whitespace before a standalone tag, prepended to every line of the
    /// partial; `nil` when the tag shares its line with other content.
    let indentation: String?

    init(reference: TemplateReference, indentation: String?) {
        self.reference = reference
        self.indentation = indentation
    }
}
