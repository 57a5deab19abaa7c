public import Foundation

/// Which addresses a fetch (a picture, or a feed the owner added) may connect to, checked on the address libcurl is about to
/// connect to (after DNS, for every redirect), so neither a redirect nor a name that resolves
/// inside the network (DNS rebinding) reaches a private host.
public struct AddressPolicy: Sendable, Equatable {
    /// Whether private, loopback, link-local, multicast and reserved addresses are allowed:
    /// `--allow-private-images` for pictures, `--allow-private-feeds` for owner-added feeds
    /// (tests whose hosts run on loopback, home networks).
    public var allowsPrivate: Bool
    /// Exact addresses allowed even when private (tests: the first loopback host, so that a
    /// redirect from it to another loopback address shows the check).
    public var alsoAllowed: Set<[UInt8]>

    /// Public addresses only: the production setting.
    public static let publicOnly = AddressPolicy(allowsPrivate: false)
    /// Any address: `--allow-private-images`, `--allow-private-feeds`.
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

    /// Whether `address` is a globally routable unicast address: its ``AddressRange`` is
    /// ``AddressRange/public`` (IPv4-mapped, -compatible, NAT64 and 6to4 addresses are judged by
    /// their IPv4 part).
    public static func isPublic(_ address: [UInt8]) -> Bool {
        AddressRange.of(address) == .public
    }

    /// Why a fetch of `url` is refused before any connection, if it is: its host is an address
    /// literal in any spelling (``HostAddress``) that this policy does not allow. A name is left
    /// to the check on the addresses it resolves to.
    public func refusal(of url: URL) -> String? {
        guard let host = url.host, let address = HostAddress.bytes(of: host), !allows(address) else {
            return nil
        }
        let text = Transfer.text(of: address)
        let range = AddressRange.of(address).rawValue
        let spelled = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if spelled == text { return "the address \(text) (\(range)) is inside the network, so it is refused" }
        return "\(host) is the address \(text) (\(range)), inside the network, so it is refused"
    }
}
