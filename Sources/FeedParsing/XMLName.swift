/// An element's or attribute's name as a namespace-aware reader sees it: matched by namespace
/// URI and local name, never by the prefix a document happens to use.
public struct XMLName: Hashable, Sendable, CustomStringConvertible {
    /// The namespace URI; empty for no namespace. An undeclared prefix (`<itunes:author>`
    /// without `xmlns:itunes`) is kept as its bare prefix, `"itunes"`, so the caller can still
    /// recognise it, as the reference feed readers do.
    public var namespace: String
    /// The name without its prefix, e.g. `title` for `<dc:title>`.
    public var local: String

    /// Creates a name.
    public init(namespace: String = "", local: String) {
        self.namespace = namespace
        self.local = local
    }

    /// `{namespace}local`, or just `local` without a namespace.
    public var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }
}
