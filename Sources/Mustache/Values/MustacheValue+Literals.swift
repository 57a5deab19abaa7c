extension MustacheValue: ExpressibleByStringLiteral {
    /// Creates a ``MustacheValue/string(_:)`` from a literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension MustacheValue: ExpressibleByStringInterpolation {}

extension MustacheValue: ExpressibleByIntegerLiteral {
    /// Creates a ``MustacheValue/number(_:)`` from an integer literal.
    public init(integerLiteral value: Int) {
        self = .number(MustacheNumber(value))
    }
}

extension MustacheValue: ExpressibleByFloatLiteral {
    /// Creates a ``MustacheValue/number(_:)`` from a floating-point literal.
    ///
    /// The literal passes through `Double`, so `1.50` becomes `1.5`; use
    /// `.number(MustacheNumber(text: "1.50")!)` to keep trailing zeros.
    public init(floatLiteral value: Double) {
        // A literal can never be NaN or infinite, so the fallback is unreachable.
        self = MustacheNumber(value).map(MustacheValue.number) ?? .null
    }
}

extension MustacheValue: ExpressibleByBooleanLiteral {
    /// Creates a ``MustacheValue/bool(_:)`` from a literal.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension MustacheValue: ExpressibleByArrayLiteral {
    /// Creates a ``MustacheValue/list(_:)`` from a literal.
    public init(arrayLiteral elements: MustacheValue...) {
        self = .list(elements)
    }
}

extension MustacheValue: ExpressibleByDictionaryLiteral {
    /// Creates a ``MustacheValue/object(_:)`` from a literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension MustacheValue: ExpressibleByNilLiteral {
    /// Creates ``MustacheValue/null`` from `nil`.
    public init(nilLiteral: ()) {
        self = .null
    }
}
