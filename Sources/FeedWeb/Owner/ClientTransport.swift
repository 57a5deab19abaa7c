import Foundation
public import HTTPServer

/// How a request reached the server, as the owner's pages need it: the client's address (what
/// sign-in throttles) and whether it came over HTTPS (what the session cookie's name and
/// `Secure` follow).
///
/// Behind a reverse proxy every peer is the proxy: with `--trust-proxy ADDRESS`, and only for
/// requests whose peer is one of those addresses, the client is the last `X-Forwarded-For`
/// entry (the one the proxy itself appended; anything before it is what the client claimed)
/// and the scheme is `X-Forwarded-Proto`. From any other peer those fields are ignored, so a
/// client that talks to the server directly cannot pick its address or claim HTTPS.
public struct ClientTransport: Sendable {
    /// Whether the server itself speaks TLS (`--tls-cert`).
    public let tls: Bool
    /// The proxies' addresses in canonical text (``canonical(_:)``).
    public let trustedProxies: Set<String>

    /// Creates the view; `trustedProxies` are IP addresses in any spelling `inet_pton` reads.
    public init(tls: Bool, trustedProxies: [String] = []) {
        self.tls = tls
        self.trustedProxies = Set(trustedProxies.compactMap(Self.canonical))
    }

    /// Whether the request came from a trusted proxy.
    func viaProxy(_ request: Request) -> Bool {
        guard !trustedProxies.isEmpty, let peer = request.remoteAddress else { return false }
        return trustedProxies.contains(Self.canonical(peer) ?? peer)
    }

    /// The client's address: the proxy's last `X-Forwarded-For` entry when the peer is a
    /// trusted proxy (and the entry is an address), else the peer's.
    public func clientAddress(_ request: Request) -> String? {
        if viaProxy(request), let forwarded = request.headers.values(for: "X-Forwarded-For").last,
            let last = forwarded.split(separator: ",").last,
            let address = Self.canonical(last.trimmingCharacters(in: .whitespaces))
        {
            return address
        }
        return request.remoteAddress
    }

    /// Whether the client's connection is HTTPS: the server's own TLS, or a trusted proxy's
    /// `X-Forwarded-Proto: https`.
    public func isSecure(_ request: Request) -> Bool {
        if tls { return true }
        guard viaProxy(request), let proto = request.headers.values(for: "X-Forwarded-Proto").last else {
            return false
        }
        return proto.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// The page's own origin as a browser names it in `Origin`: the scheme and the `Host` sent.
    func origin(_ request: Request) -> String? {
        guard let host = request.headers["Host"], !host.isEmpty else { return nil }
        return (isSecure(request) ? "https://" : "http://") + host.lowercased()
    }

    /// An IP address in canonical text (`::ffff:127.0.0.1` stays itself, `0:0::1` becomes `::1`),
    /// or nil when `text` is not an address.
    public static func canonical(_ text: String) -> String? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        var v6 = in6_addr()
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if inet_pton(AF_INET, text, &v4) == 1 {
            guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        } else {
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
