import CHiredis

/// A Redis reply (RESP2) as a Swift value, copied out of hiredis's reply tree.
public indirect enum RedisReply: Sendable, Equatable {
    /// A bulk string (binary safe).
    case string([UInt8])
    /// A status reply such as `OK` or `PONG`.
    case status(String)
    /// An integer reply.
    case integer(Int)
    /// An array reply.
    case array([RedisReply])
    /// The nil bulk string or nil array.
    case null
    /// An error reply such as `NOSCRIPT No matching script`.
    case error(String)

    /// Copies `reply` (which the caller frees with `freeReplyObject`).
    init(_ reply: UnsafePointer<redisReply>) {
        let value = reply.pointee
        switch value.type {
        case REDIS_REPLY_STRING:
            self = .string(Self.bytes(value.str, count: value.len))
        case REDIS_REPLY_STATUS:
            self = .status(String(decoding: Self.bytes(value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_ERROR:
            self = .error(String(decoding: Self.bytes(value.str, count: value.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER:
            self = .integer(Int(value.integer))
        case REDIS_REPLY_ARRAY:
            var elements: [RedisReply] = []
            elements.reserveCapacity(value.elements)
            for index in 0..<value.elements {
                if let element = value.element?[index] {
                    elements.append(RedisReply(element))
                } else {
                    elements.append(.null)
                }
            }
            self = .array(elements)
        default:
            self = .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// The text of a bulk string or status reply.
    public var text: String? {
        switch self {
        case .string(let bytes): String(decoding: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The value of an integer reply, or of a bulk string holding an integer.
    public var integerValue: Int? {
        switch self {
        case .integer(let value): value
        case .string(let bytes): Int(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }
}
