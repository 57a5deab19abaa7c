/// One attribute of an element, its value with character and predefined entity references
/// decoded once.
public struct XMLAttribute: Sendable, Equatable {
    /// Its name (unprefixed attributes have no namespace).
    public var name: XMLName
    /// Its value.
    public var value: String

    /// Creates an attribute.
    public init(name: XMLName, value: String) {
        self.name = name
        self.value = value
    }
}

extension [XMLAttribute] {
    /// The value of the attribute called `local` in `namespace` (none by default), if present.
    public func value(of local: String, namespace: String = "") -> String? {
        first { $0.name.local == local && $0.name.namespace == namespace }?.value
    }
}
