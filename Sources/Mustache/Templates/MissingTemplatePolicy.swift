/// What a ``MustacheLibrary`` does when a template names a partial or parent it does not contain.
public enum MissingTemplatePolicy: Sendable {
    /// Loading fails with a ``MustacheError`` that names the template, the
    /// missing name and where it is referenced. The default: a typo should
    /// stop the app at startup, not blank out part of a page.
    case failAtLoad
    /// Loading succeeds and the reference renders as the empty string, as the
    /// Mustache spec describes.
    case renderEmpty
}
