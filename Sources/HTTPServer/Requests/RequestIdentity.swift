/// A request's `X-Request-Id`: the client's (acceptable) value, or a number the server made up,
/// spelled as 16 hex digits only when something needs the text. Most requests never do: their
/// pooled response gets the digits written straight into its header (``RequestIDSlot``).
enum RequestIdentity: Sendable {
    /// The client's value, checked by ``RequestID/problem(with:)``.
    case sent(String)
    /// Made up by ``RequestID/generate()``.
    case made(UInt64)

    /// The id as sent in the header and written to the logs.
    var text: String {
        switch self {
        case .sent(let value): value
        case .made: withUTF8 { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// Calls `body` with the id's bytes, without making a string for a made-up one.
    func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        switch self {
        case .sent(let value):
            var value = value
            return value.withUTF8(body)
        case .made(let number):
            // Sixteen bytes on the stack: a tuple is the fixed-size buffer Swift lays out inline.
            var digits: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &digits) { raw in
                let buffer = raw.bindMemory(to: UInt8.self)
                RequestID.writeHex(number, into: buffer)
                return body(UnsafeBufferPointer(buffer))
            }
        }
    }
}
