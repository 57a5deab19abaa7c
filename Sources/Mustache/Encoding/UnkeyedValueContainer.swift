/// The unkeyed container of ``ValueEncoder``: appends elements to a shared ``ListStorage``.
struct UnkeyedValueContainer: UnkeyedEncodingContainer {
    let list: ListStorage
    let codingPath: [any CodingKey]

    var count: Int { list.items.count }

    private var elementPath: [any CodingKey] {
        codingPath + [IndexKey(intValue: list.items.count)]
    }

    mutating func encodeNil() throws {
        list.items.append(.value(.null))
    }

    mutating func encode(_ value: Bool) throws {
        list.items.append(.value(.bool(value)))
    }

    mutating func encode(_ value: String) throws {
        list.items.append(.value(.string(value)))
    }

    mutating func encode(_ value: Double) throws {
        let path = elementPath
        list.items.append(.value(try ValueEncoder.number(value, codingPath: path)))
    }

    mutating func encode(_ value: Float) throws {
        let path = elementPath
        list.items.append(.value(try ValueEncoder.number(value, codingPath: path)))
    }

    mutating func encode(_ value: Int) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: Int8) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: Int16) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: Int32) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: Int64) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: UInt) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: UInt8) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: UInt16) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: UInt32) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode(_ value: UInt64) throws {
        list.items.append(.value(.number(MustacheNumber(value))))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        list.items.append(try ValueEncoder.box(value, codingPath: elementPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectStorage()
        let path = elementPath
        list.items.append(.object(nested))
        return KeyedEncodingContainer(KeyedValueContainer<NestedKey>(object: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ListStorage()
        let path = elementPath
        list.items.append(.list(nested))
        return UnkeyedValueContainer(list: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(codingPath: elementPath)
        list.items.append(.deferred(encoder))
        return encoder
    }
}
