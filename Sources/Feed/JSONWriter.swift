/// A minimal JSON writer for the API's own output: faster than JSONEncoder and byte-stable
/// (fixed key order), which keeps ETags and benchmarks honest.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func number(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func null() {
        raw("null")
    }

    mutating func string(_ value: String) {
        bytes.append(34)
        for byte in value.utf8 {
            switch byte {
            case 34: bytes.append(contentsOf: [92, 34])
            case 92: bytes.append(contentsOf: [92, 92])
            case 10: bytes.append(contentsOf: [92, 110])
            case 13: bytes.append(contentsOf: [92, 114])
            case 9: bytes.append(contentsOf: [92, 116])
            case 0..<32, 127:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            case 60:
                // Escape '<' so JSON embedded anywhere can never close a <script> element.
                bytes.append(contentsOf: Array("\\u003c".utf8))
            default: bytes.append(byte)
            }
        }
        bytes.append(34)
    }

    mutating func item(_ entry: FeedSnapshot.Entry) {
        raw("{\"id\":")
        number(entry.item.id)
        raw(",\"title\":")
        string(entry.item.title)
        raw(",\"body\":")
        string(entry.item.body)
        raw(",\"createdAt\":")
        string(Timestamp.iso(entry.item.createdAt))
        raw(",\"version\":")
        number(entry.addedIn)
        raw("}")
    }

    mutating func items(_ entries: some Collection<FeedSnapshot.Entry>) {
        raw("[")
        var first = true
        for entry in entries {
            if !first { raw(",") }
            first = false
            item(entry)
        }
        raw("]")
    }
}
