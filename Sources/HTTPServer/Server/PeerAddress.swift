import Foundation

/// A client address kept as raw bytes and turned into text only when someone asks.
enum PeerAddress: Sendable {
    case unknown
    case text(String)
    case ipv4(UInt32)
    case ipv6(UInt64, UInt64)

    init(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            self = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                .ipv4($0.pointee.sin_addr.s_addr)
            }
        case AF_INET6:
            self = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { raw in
                    .ipv6(
                        raw.load(fromByteOffset: 0, as: UInt64.self),
                        raw.load(fromByteOffset: 8, as: UInt64.self))
                }
            }
        default:
            self = .unknown
        }
    }

    var text: String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family: Int32
        let ok: Bool
        switch self {
        case .unknown: return nil
        case .text(let text): return text
        case .ipv4(let raw):
            var value = raw
            family = AF_INET
            ok = inet_ntop(family, &value, &buffer, socklen_t(buffer.count)) != nil
        case .ipv6(let high, let low):
            var value = (high, low)
            family = AF_INET6
            ok = inet_ntop(family, &value, &buffer, socklen_t(buffer.count)) != nil
        }
        guard ok else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
