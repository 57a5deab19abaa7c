/// Which addresses an image fetch may connect to, checked on the address libcurl is about to
/// connect to (after DNS, for every redirect), so neither a redirect nor a name that resolves
/// inside the network (DNS rebinding) reaches a private host.
public struct AddressPolicy: Sendable, Equatable {
    /// Whether private, loopback, link-local, multicast and reserved addresses are allowed:
    /// only with `--allow-private-images`, for tests whose image hosts run on loopback.
    public var allowsPrivate: Bool
    /// Exact addresses allowed even when private (tests: the first loopback host, so that a
    /// redirect from it to another loopback address shows the check).
    public var alsoAllowed: Set<[UInt8]>

    /// Public addresses only: the production setting.
    public static let publicOnly = AddressPolicy(allowsPrivate: false)
    /// Any address: `--allow-private-images`.
    public static let any = AddressPolicy(allowsPrivate: true)

    /// Creates a policy.
    public init(allowsPrivate: Bool, alsoAllowed: Set<[UInt8]> = []) {
        self.allowsPrivate = allowsPrivate
        self.alsoAllowed = alsoAllowed
    }

    /// Whether connecting to `address` (4 or 16 bytes, network order) is allowed.
    public func allows(_ address: [UInt8]) -> Bool {
        allowsPrivate || alsoAllowed.contains(address) || Self.isPublic(address)
    }

    /// Whether `address` is a globally routable unicast address: not `0.0.0.0/8`, `10/8`,
    /// `100.64/10`, `127/8`, `169.254/16`, `172.16/12`, `192.0.0/24`, `192.168/16`, `198.18/15`,
    /// `224/4` (multicast), `240/4`; in IPv6 not `::`, `::1`, `fc00::/7`, `fe80::/10`, `fec0::/10`,
    /// `ff00::/8`, and IPv4-mapped, -compatible and NAT64 (`64:ff9b::/96`) addresses are judged
    /// by their IPv4 part.
    public static func isPublic(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4: return isPublicIPv4(address[0], address[1])
        case 16: break
        default: return false
        }
        let first = address[0]
        let second = address[1]
        if first == 0xff { return false }  // multicast
        if first & 0xfe == 0xfc { return false }  // unique local fc00::/7
        if first == 0xfe && second & 0xc0 == 0x80 { return false }  // link-local fe80::/10
        if first == 0xfe && second & 0xc0 == 0xc0 { return false }  // site-local fec0::/10
        let embedsIPv4 =
            address[0..<10].allSatisfy { $0 == 0 }
            && (address[10..<12].allSatisfy { $0 == 0xff } || address[10..<12].allSatisfy { $0 == 0 })
        let nat64 = address[0..<12].elementsEqual([0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0])
        if embedsIPv4 || nat64 {
            // ::ffff:a.b.c.d, ::a.b.c.d (and so :: and ::1), 64:ff9b::a.b.c.d.
            return isPublicIPv4(address[12], address[13])
        }
        return true
    }

    private static func isPublicIPv4(_ first: UInt8, _ second: UInt8) -> Bool {
        switch first {
        case 0, 10, 127: return false
        case 100 where second & 0xc0 == 64: return false  // shared address space
        case 169 where second == 254: return false  // link-local
        case 172 where second & 0xf0 == 16: return false
        case 192 where second == 168: return false
        case 192 where second == 0: return false  // 192.0.0/24 and 192.0.2/24 (documentation)
        case 198 where second & 0xfe == 18: return false  // benchmarking
        case 224...255: return false  // multicast, reserved, broadcast
        default: return true
        }
    }
}
