/// A minimal JSON writer for the API's own output: faster than JSONEncoder and byte-stable
/// (fixed key order), which keeps ETags and benchmarks honest. `package`: the API's documents
/// are written with it in `FeedWeb` (`JSONWriter+Documents.swift`), the river's source state
/// in `River` and `FeedParsing` (the feed hints).
package struct JSONWriter {
    /// What was written so far.
    package private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends `text` as it is (punctuation, keys).
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends an integer.
    package mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends a finite double in its shortest form that reads back as the same value
    /// (`786297600.25`, `1e-07`: both JSON numbers); `null` for infinity and NaN, which JSON
    /// has no number for.
    package mutating func number(_ value: Double) {
        guard value.isFinite else { return null() }
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Appends `null`.
    package mutating func null() {
        raw("null")
    }

    /// Appends `value` as a JSON string (quotes, control characters, `<` escaped).
    package mutating func string(_ value: String) {
        bytes.append(34)
        var value = value
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 32 || byte == 34 || byte == 92 || byte == 60 || byte == 127 else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                escape(byte)
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(34)
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case 34: raw("\\\"")
        case 92: raw("\\\\")
        case 10: raw("\\n")
        case 13: raw("\\r")
        case 9: raw("\\t")
        case 60: raw("\\u003c")
        default:
            let hex: StaticString = "0123456789abcdef"
            raw("\\u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 15)])
            }
        }
    }
}
