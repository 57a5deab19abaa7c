/// The keyed container of ``ValueEncoder``: writes fields into a shared ``ObjectStorage``.
///
/// `encodeIfPresent` is overridden for every type so that `nil` optionals
/// become ``MustacheValue/null`` instead of a missing key: a missing key would
/// let a lookup fall through to an outer context and render the wrong value.
struct KeyedValueContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: ObjectStorage
    let codingPath: [any CodingKey]

    private func set(_ value: MustacheValue, for key: Key) {
        object.fields[key.stringValue] = .value(value)
    }

    mutating func encodeNil(forKey key: Key) throws {
        set(.null, for: key)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        set(.bool(value), for: key)
    }

    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        set(.string(value), for: key)
    }

    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        let path = codingPath + [key]
        set(try ValueEncoder.number(value, codingPath: path), for: key)
    }

    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        let path = codingPath + [key]
        set(try ValueEncoder.number(value, codingPath: path), for: key)
    }

    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(.number(MustacheNumber(value)), for: key)
    }

    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.fields[key.stringValue] = try ValueEncoder.box(value, codingPath: codingPath + [key])
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        guard let value else { return set(.null, for: key) }
        try encode(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectStorage()
        object.fields[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(
            KeyedValueContainer<NestedKey>(object: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ListStorage()
        object.fields[key.stringValue] = .list(nested)
        return UnkeyedValueContainer(list: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: "super")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key.stringValue)
    }

    private func superEncoder(named name: String) -> any Encoder {
        let encoder = ValueEncoder(codingPath: codingPath)
        object.fields[name] = .deferred(encoder)
        return encoder
    }
}
