/// Under what a response may be sent again without routing: while `content` stays at `version`.
/// A class, so that copying a ``Response`` costs one retain for it.
final class ReuseCondition: Sendable {
    let content: any VersionedContent
    let version: Int

    init(content: any VersionedContent, version: Int) {
        self.content = content
        self.version = version
    }

    /// Whether the content is still at the version the response was made for.
    var isCurrent: Bool { content.currentVersion == version }
}
