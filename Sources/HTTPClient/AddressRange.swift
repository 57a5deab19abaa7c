/// The range an address (4 or 16 bytes, network order) belongs to, for ``AddressPolicy`` and for
/// messages that say why an address is refused. Every range but ``public`` is inside a network
/// (this machine's, a LAN's, a provider's) or not a unicast destination at all.
public enum AddressRange: String, Sendable, CaseIterable {
    /// Globally routable unicast.
    case `public` = "public"
    /// `0.0.0.0/8` ("this network"), `::`.
    case unspecified = "unspecified"
    /// `127.0.0.0/8`, `::1`.
    case loopback = "loopback"
    /// `10/8`, `172.16/12`, `192.168/16` (RFC 1918).
    case privateUse = "private"
    /// `100.64/10`, the carrier-grade NAT range (RFC 6598).
    case sharedAddressSpace = "shared address space"
    /// `169.254/16`, `fe80::/10` (where cloud metadata services answer).
    case linkLocal = "link-local"
    /// `fc00::/7` (RFC 4193).
    case uniqueLocal = "unique-local"
    /// `fec0::/10`, deprecated but still routed inside some networks.
    case siteLocal = "site-local"
    /// `224/4`, `ff00::/8`.
    case multicast = "multicast"
    /// `240/4` and `255.255.255.255`, `192.0.0/24` (protocol assignments), the documentation
    /// ranges (`192.0.2/24`, `198.51.100/24`, `203.0.113/24`, `2001:db8::/32`), benchmarking
    /// (`198.18/15`), IPv6 discard (`100::/64`), and any address of neither 4 nor 16 bytes.
    case reserved = "reserved"

    /// The range of `address`. IPv6 addresses that carry an IPv4 address the connection reaches
    /// (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`, IPv4-translated
    /// `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`) are
    /// judged by that IPv4 address.
    public static func of(_ address: [UInt8]) -> AddressRange {
        switch address.count {
        case 4: return ofIPv4(address[0], address[1], address[2])
        case 16: return ofIPv6(address)
        default: return .reserved
        }
    }

    private static func ofIPv6(_ address: [UInt8]) -> AddressRange {
        let first = address[0]
        let second = address[1]
        if first == 0xff { return .multicast }
        if first & 0xfe == 0xfc { return .uniqueLocal }
        if first == 0xfe && second & 0xc0 == 0x80 { return .linkLocal }
        if first == 0xfe && second & 0xc0 == 0xc0 { return .siteLocal }
        let zeros = address[0..<10].allSatisfy { $0 == 0 }
        if zeros && address[10..<16].allSatisfy({ $0 == 0 }) { return .unspecified }
        if zeros && address[10..<15].allSatisfy({ $0 == 0 }) && address[15] == 1 { return .loopback }
        let mapped = zeros && address[10..<12].allSatisfy { $0 == 0xff }
        let compatible = zeros && address[10..<12].allSatisfy { $0 == 0 }
        let translated =
            address[0..<8].allSatisfy { $0 == 0 } && address[8..<12].elementsEqual([0xff, 0xff, 0, 0])
        let nat64 = address[0..<12].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])
        let localNAT64 = address[0..<6].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01])
        if mapped || compatible || translated || nat64 || localNAT64 {
            return ofIPv4(address[12], address[13], address[14])
        }
        if first == 0x20 && second == 0x02 { return ofIPv4(address[2], address[3], address[4]) }  // 6to4
        if address[0..<4].elementsEqual([0x20, 0x01, 0x0d, 0xb8]) { return .reserved }  // documentation
        if first == 0x01 && address[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }  // discard 100::/64
        return .public
    }

    private static func ofIPv4(_ first: UInt8, _ second: UInt8, _ third: UInt8) -> AddressRange {
        switch (first, second, third) {
        case (0, _, _): return .unspecified
        case (127, _, _): return .loopback
        case (10, _, _), (172, 16...31, _), (192, 168, _): return .privateUse
        case (100, 64...127, _): return .sharedAddressSpace
        case (169, 254, _): return .linkLocal
        case (224...239, _, _): return .multicast
        // 192.0.0/24 (protocol assignments) and 192.0.2/24 (documentation); the whole /16 as
        // before, none of it hosts feeds.
        case (192, 0, _), (198, 18...19, _), (198, 51, 100), (203, 0, 113), (240...255, _, _):
            return .reserved
        default: return .public
        }
    }
}
