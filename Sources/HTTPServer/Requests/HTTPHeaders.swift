/// An ordered list of HTTP header fields with case-insensitive lookup.
///
/// Order is kept because it matters for some headers (e.g. repeated `Set-Cookie`) and
/// makes responses byte-for-byte predictable in tests.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in the order they were added.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from name/value pairs, keeping their order.
    public init(_ fields: [(name: String, value: String)] = []) {
        self.fields = fields
    }

    /// Creates headers from a literal such as `["Content-Type": "text/plain"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        for field in fields where field.name.caseInsensitiveEquals(name) {
            return field.value
        }
        return nil
    }

    /// Every value for `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Appends a field, keeping any existing ones with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every field named `name` with a single one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    /// Removes every field named `name`.
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether no fields are present.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Compares names case-insensitively and values exactly, in order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.fields.count == rhs.fields.count else { return false }
        return zip(lhs.fields, rhs.fields).allSatisfy {
            $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value
        }
    }
}

extension String {
    /// ASCII case-insensitive comparison; header names are ASCII tokens, so this avoids
    /// allocating lowercased copies on every lookup. It runs several times per request (a
    /// lookup compares every field's name), so the usual outcomes come first: a different
    /// length, or the very same spelling (one memory comparison).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = self.utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        if self == other { return true }
        return String.caseInsensitiveBytesEqual(lhs, rhs)
    }

    /// The byte-by-byte part, out of line so that the common outcomes above stay small enough
    /// to inline into every lookup; names of one length (`Accept-Encoding` and
    /// `Accept-Language`) come here on most page requests.
    @inline(never)
    private static func caseInsensitiveBytesEqual(_ lhs: String.UTF8View, _ rhs: String.UTF8View) -> Bool {
        let compared = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in caseInsensitiveBytesEqual(left, right) }
        }
        if let compared, let result = compared { return result }
        return lhs.elementsEqual(rhs, by: sameLetter)
    }

    /// The same comparison over two byte buffers of one length (also ``HeaderScan``'s, over
    /// libmicrohttpd's field names).
    static func caseInsensitiveBytesEqual(
        _ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>
    )
        -> Bool
    {
        guard left.count == right.count else { return false }
        for index in 0..<left.count where !sameLetter(left[index], right[index]) { return false }
        return true
    }

    /// Equal bytes, or the same ASCII letter in the other case (only letters differ by 0x20 alone).
    private static func sameLetter(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (97...122).contains(a | 0x20))
    }
}
