import Foundation

/// A response kept by ``StoredResponses``, with what a request must match to get it.
final class StoredResponse: Sendable {
    /// The storing request's target and the values it sent for the response's `Vary` names.
    struct Key: Equatable, Sendable {
        /// The path as sent (undecoded).
        var path: [UInt8]
        /// The query as sent (undecoded, without the `?`); empty when there was none.
        var query: [UInt8]
        /// The response's `Vary` names, lowercase.
        var varyNames: [[UInt8]]
        /// The storing request's value for each name, nil where it sent none.
        var varyValues: [[UInt8]?]
    }

    let key: Key
    let response: Response
    let condition: ReuseCondition
    /// What answering with it takes, read out of `response` once: the answer copies no
    /// ``Response`` (five references to retain and release) per request.
    let prepared: PreparedResponse
    let status: Int
    let routeIndex: Int
    let bodyBytes: Int
    /// The access of the route that made it when a gate guards that route (``AccessGate``):
    /// the gate is asked again before each reuse. Nil: it goes to anyone (no gate, `.anyone`).
    let access: Access?

    init(
        key: Key, response: Response, prepared: PreparedResponse, condition: ReuseCondition,
        access: Access? = nil
    ) {
        self.key = key
        self.response = response
        self.condition = condition
        self.prepared = prepared
        status = response.status
        routeIndex = response.routeIndex
        bodyBytes = response.body.count
        self.access = access
    }

    /// Whether the entry is for this target (`length` bytes of `path`, as sent).
    func isFor(path: UnsafePointer<CChar>, length: Int, query: Substring) -> Bool {
        // Bytes, not `==`: a query is nearly always empty, and Unicode-aware comparison costs more.
        guard key.path.count == length, key.query.count == query.utf8.count else { return false }
        guard key.query.isEmpty || key.query.elementsEqual(query.utf8) else { return false }
        return Self.bytes(key.path, equal: path)
    }

    /// Whether a request for this target sent the same values (scanned with the `Vary` names).
    func matches(_ scan: borrowing HeaderScan) -> Bool {
        for index in key.varyValues.indices {
            let sent = scan.values[index]
            guard let expected = key.varyValues[index] else {
                if sent.bytes != nil { return false }
                continue
            }
            guard let bytes = sent.bytes, sent.count == expected.count, Self.bytes(expected, equal: bytes)
            else {
                return false
            }
        }
        return true
    }

    /// Whether `stored` is the first `stored.count` bytes at `sent` (libmicrohttpd's memory).
    private static func bytes(_ stored: [UInt8], equal sent: UnsafePointer<CChar>) -> Bool {
        stored.withUnsafeBytes { own in
            guard let start = own.baseAddress else { return true }  // both empty
            return memcmp(start, sent, own.count) == 0
        }
    }
}
