import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The key an address's sign-in failures are counted under: an IPv4 address as it is, an IPv6
/// address by its /64 (one subscriber commonly holds a whole /64, and would otherwise have
/// 2^64 fresh addresses to guess from), an IPv4-mapped IPv6 address as its IPv4 address.
enum ThrottleKey {
    static func of(_ address: String) -> String {
        var bytes = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let octets = withUnsafeBytes(of: &bytes) { Array($0) }
        if octets[0..<10].allSatisfy({ $0 == 0 }) && octets[10] == 0xff && octets[11] == 0xff {
            return octets[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
