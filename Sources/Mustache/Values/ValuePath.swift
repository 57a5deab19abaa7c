/// A tag's dotted name, split once at parse time so lookups never split strings.
struct ValuePath: Sendable, CustomStringConvertible {
    /// The name's parts; empty for the implicit iterator `.`.
    let components: [String]

    /// The name as written in the template.
    let description: String

    /// Splits `name`; returns `nil` when a part is empty (`a..b`, `.a`, `a.`).
    init?(_ name: String) {
        description = name
        if name == "." {
            components = []
            return
        }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        components = parts.map(String.init)
    }
}
