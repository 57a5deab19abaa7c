/// The single-value container of ``ValueEncoder``: replaces the encoder's whole value.
struct SingleValueContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws {
        encoder.storage = .value(.null)
    }

    mutating func encode(_ value: Bool) throws {
        encoder.storage = .value(.bool(value))
    }

    mutating func encode(_ value: String) throws {
        encoder.storage = .value(.string(value))
    }

    mutating func encode(_ value: Double) throws {
        let path = codingPath
        encoder.storage = .value(try ValueEncoder.number(value, codingPath: path))
    }

    mutating func encode(_ value: Float) throws {
        let path = codingPath
        encoder.storage = .value(try ValueEncoder.number(value, codingPath: path))
    }

    mutating func encode(_ value: Int) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: Int8) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: Int16) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: Int32) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: Int64) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: UInt) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: UInt8) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: UInt16) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: UInt32) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode(_ value: UInt64) throws {
        encoder.storage = .value(.number(MustacheNumber(value)))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.storage = try ValueEncoder.box(value, codingPath: codingPath)
    }
}
