import Foundation

/// An `Encoder` that builds a ``MustacheValue`` directly, without a JSON round trip.
///
/// Conventions (matching what a template author would expect from JSON):
/// `nil` optionals become `null` (also for `encodeIfPresent`), `Date` becomes an
/// ISO 8601 UTC string (`2024-05-01T12:00:00Z`), `URL` its absolute string,
/// `Data` a Base64 string, `Decimal` a number, and a ``MustacheValue`` is used as is.
final class ValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any] = [:]
    /// What has been encoded so far; `nil` until the value's `encode(to:)` writes something.
    var storage: EncodedValue?

    init(codingPath: [any CodingKey] = []) {
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: ObjectStorage
        if case .object(let existing) = storage {
            object = existing
        } else {
            object = ObjectStorage()
            storage = .object(object)
        }
        return KeyedEncodingContainer(KeyedValueContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let list: ListStorage
        if case .list(let existing) = storage {
            list = existing
        } else {
            list = ListStorage()
            storage = .list(list)
        }
        return UnkeyedValueContainer(list: list, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self)
    }

    /// Encodes one value, handling the Foundation types whose default
    /// `Encodable` form (a number of seconds, an array of bytes) is useless in a page.
    static func box<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> EncodedValue {
        switch value {
        case let value as MustacheValue:
            return .value(value)
        case let date as Date:
            return .value(.string(date.formatted(Date.ISO8601FormatStyle())))
        case let url as URL:
            return .value(.string(url.absoluteString))
        case let data as Data:
            return .value(.string(data.base64EncodedString()))
        case let decimal as Decimal:
            guard decimal.isFinite else {
                throw EncodingError.invalidValue(
                    decimal, .init(codingPath: codingPath, debugDescription: "Decimal is not a finite number")
                )
            }
            return .value(.number(MustacheNumber(validatedText: decimal.description)))
        default:
            let encoder = ValueEncoder(codingPath: codingPath)
            try value.encode(to: encoder)
            return encoder.storage ?? .value(.null)
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> MustacheValue {
        guard let number = MustacheNumber(value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) has no textual number form"))
        }
        return .number(number)
    }

    static func number(_ value: Float, codingPath: [any CodingKey]) throws -> MustacheValue {
        guard let number = MustacheNumber(value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) has no textual number form"))
        }
        return .number(number)
    }
}
