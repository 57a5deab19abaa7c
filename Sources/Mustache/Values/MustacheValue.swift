/// A value in a Mustache render context.
///
/// Rendering walks these values directly (no reflection), so build them once
/// per request with ``init(json:)``, ``init(encoding:)`` or literals:
///
/// ```swift
/// let context: MustacheValue = ["title": "News", "items": [["name": "A"], ["name": "B"]]]
/// ```
///
/// Truthiness for sections: `false`, `null`, the empty list and the empty
/// string are falsey; every number (including `0`), every object (including
/// `{}`) and every other string is truthy.
public enum MustacheValue: Sendable, Hashable {
    /// Text, HTML-escaped by `{{name}}` and written verbatim by `{{{name}}}`.
    case string(String)
    /// A number, rendered exactly as its ``MustacheNumber/text``.
    case number(MustacheNumber)
    /// A boolean; renders as `true` or `false` and drives sections.
    case bool(Bool)
    /// A list; sections render once per element.
    case list([MustacheValue])
    /// An object whose keys are looked up by tag names.
    case object([String: MustacheValue])
    /// The absence of a value; renders as the empty string and is falsey.
    case null

    /// Whether a section over this value renders (see the type's documentation).
    public var isTruthy: Bool {
        switch self {
        case .bool(let value): value
        case .null: false
        case .list(let items): !items.isEmpty
        case .string(let text): !text.isEmpty
        case .number, .object: true
        }
    }

    /// The value stored under `key` when this is an object, otherwise `nil`.
    public subscript(key: String) -> MustacheValue? {
        guard case .object(let fields) = self else { return nil }
        return fields[key]
    }

    /// The text an interpolation tag writes for this value, before escaping.
    ///
    /// Lists, objects and `null` interpolate as the empty string: there is no
    /// textual form that a template author could rely on.
    public var interpolationText: String {
        switch self {
        case .string(let text): text
        case .number(let number): number.text
        case .bool(let value): value ? "true" : "false"
        case .list, .object, .null: ""
        }
    }
}
