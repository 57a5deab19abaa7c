import Foundation

/// A response kept by ``StoredResponses``, with what a request must match to get it.
final class StoredResponse: Sendable {
    /// The storing request's target and the values it sent for the response's `Vary` names.
    struct Key: Equatable, Sendable {
        /// The path as sent (undecoded).
        var path: String
        /// The query as sent (undecoded, without the `?`); empty when there was none.
        var query: String
        /// The response's `Vary` names, lowercase.
        var varyNames: [[UInt8]]
        /// The storing request's value for each name, nil where it sent none.
        var varyValues: [[UInt8]?]
    }

    let key: Key
    let response: Response
    let condition: ReuseCondition

    init(key: Key, response: Response, condition: ReuseCondition) {
        self.key = key
        self.response = response
        self.condition = condition
    }

    /// Whether the entry is for this target.
    func isFor(path: String, query: Substring) -> Bool {
        key.path == path && key.query == query
    }

    /// Whether a request for this target sent the same values (scanned with the `Vary` names).
    func matches(_ scan: HeaderScan) -> Bool {
        for index in key.varyValues.indices {
            let sent = scan.values[index]
            guard let expected = key.varyValues[index] else {
                if sent.bytes != nil { return false }
                continue
            }
            guard let bytes = sent.bytes, sent.count == expected.count else { return false }
            let same = expected.withUnsafeBytes { stored in
                guard let start = stored.baseAddress else { return true }  // both empty
                return memcmp(start, bytes, sent.count) == 0
            }
            if !same { return false }
        }
        return true
    }
}
