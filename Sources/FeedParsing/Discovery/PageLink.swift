/// One `<link>` element of a page, its attributes as written (entities decoded by libxml2).
struct PageLink: Sendable, Equatable {
    /// `rel`: space-separated tokens.
    var rel: String
    /// `type`, possibly with parameters.
    var type: String?
    /// `href`, relative or absolute.
    var href: String
    /// `title`.
    var title: String?
}
