import Foundation

extension MustacheValue {
    /// Converts any `Encodable` value into a context, without going through JSON.
    ///
    /// Structs and dictionaries with string keys become objects, arrays become
    /// lists, and `nil` optionals become ``MustacheValue/null`` (never a missing
    /// key, so `{{subtitle}}` inside a section cannot pick up an outer value).
    /// `Date` becomes an ISO 8601 UTC string such as `2024-05-01T12:00:00Z`
    /// (format it yourself into a `String` field for display), `URL` its
    /// absolute string, `Data` Base64 text, and numbers their shortest
    /// round-tripping text (`2.0` → `2`).
    ///
    /// - Throws: `EncodingError` for values with no textual form (NaN, infinity),
    ///   or any error the value's own `encode(to:)` throws.
    public init<T: Encodable>(encoding value: T) throws {
        self = try ValueEncoder.box(value, codingPath: []).resolved
    }
}

extension MustacheValue: Encodable {
    /// Encodes the value the way it would appear in JSON.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let number):
            var container = encoder.singleValueContainer()
            // Decimal keeps up to 38 significant digits, where Double would round.
            if let integer = Int(number.text) {
                try container.encode(integer)
            } else if let decimal = Decimal(string: number.text) {
                try container.encode(decimal)
            } else {
                try container.encode(number.doubleValue ?? 0)
            }
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .list(let items):
            var container = encoder.unkeyedContainer()
            for item in items {
                try container.encode(item)
            }
        case .object(let fields):
            var container = encoder.container(keyedBy: FieldKey.self)
            for (key, value) in fields {
                try container.encode(value, forKey: FieldKey(stringValue: key))
            }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}
