/// A minimal JSON writer for the API's own output: faster than JSONEncoder and byte-stable
/// (fixed key order), which keeps ETags and benchmarks honest. `package`: the river's source
/// state (`Upstream`) is written with it too.
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

    /// `{"version":N,"updatedAt":"…","epoch":"…"`: how every body that reports a snapshot begins (the items
    /// API, the refresh answer, the event stream's events); the caller adds the rest and `}`.
    mutating func openSnapshot(_ snapshot: FeedSnapshot) {
        raw("{\"version\":")
        number(snapshot.version)
        raw(",\"updatedAt\":")
        string(Timestamp.iso(snapshot.updatedAt))
        raw(",\"epoch\":")
        string(snapshot.position.tag)
    }

    /// `{"key":"…","title":"…"`: how every description of a river source begins; the caller
    /// adds the rest and `}`.
    mutating func openSource(_ label: SourceLabel) {
        raw("{\"key\":")
        string(label.key)
        raw(",\"title\":")
        string(label.title)
    }

    /// One item; `source` (a river's) adds `"source":{"key","title"}`.
    mutating func item(_ entry: FeedSnapshot.Entry, source: SourceLabel? = nil) {
        raw("{\"id\":")
        string(entry.item.id)
        raw(",\"title\":")
        string(entry.item.title)
        raw(",\"body\":")
        string(entry.item.body)
        if let url = entry.item.url {
            raw(",\"url\":")
            string(url)
        }
        if let image = entry.item.image {
            raw(",\"image\":")
            string(image)
        }
        raw(",\"createdAt\":")
        string(Timestamp.iso(entry.item.createdAt))
        raw(",\"version\":")
        number(entry.addedIn)
        if let source {
            raw(",\"source\":")
            openSource(source)
            raw("}")
        }
        raw("}")
    }

    /// A JSON array of items; `sources` labels a river's items.
    mutating func items(_ entries: some Collection<FeedSnapshot.Entry>, sources: (any SourceDirectory)? = nil)
    {
        raw("[")
        var first = true
        for entry in entries {
            if !first { raw(",") }
            first = false
            item(entry, source: sources?.label(forItemID: entry.item.id))
        }
        raw("]")
    }
}
