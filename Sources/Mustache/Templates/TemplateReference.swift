/// How a partial or parent tag names the template it includes.
enum TemplateReference: Sendable {
    /// `{{>name}}`: the name is fixed, so a library can check it at load time.
    case fixed(String)
    /// `{{>*path}}`: the name is looked up in the context at render time.
    case dynamic(ValuePath)
}
