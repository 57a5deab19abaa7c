/// A partial or parent that a template names literally, with where it is named.
///
/// Libraries check these at load time so that a typo in a template name is a
/// startup error instead of a silently empty part of a page.
struct TemplateDependency: Sendable {
    let name: String
    let isParent: Bool
    let line: Int
    let column: Int
}
