import Glibc

/// The address a URL's host names when it is an address literal, read the way the C resolver
/// reads it (glibc's `inet_aton` for IPv4, `inet_pton` for IPv6) and the way libcurl normalizes
/// it, so that a literal inside the network is refused with a clear message before any
/// connection, whatever its spelling. A name (anything else) is nil here: it is checked on the
/// addresses it resolves to, when libcurl connects (``AddressPolicy``).
///
/// IPv4 literals take one to four dot-separated parts; each part is decimal, hexadecimal after
/// `0x`, or **octal after a leading `0`** (`0177.0.0.1` is 127.0.0.1, and `010.0.0.1` is
/// 8.0.0.1, not 10.0.0.1); the last part fills the bytes the earlier ones leave (`127.1` is
/// 127.0.0.1, `2130706433` and `0x7f000001` are too). IPv6 literals may be bracketed, may carry
/// a zone (`%25eth0`) and may end in a dotted IPv4 part (`::ffff:127.0.0.1`).
public enum HostAddress {
    /// The 4 or 16 bytes (network order) that `host` names, or nil when it is a name.
    public static func bytes(of host: String) -> [UInt8]? {
        var host = Substring(host)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.contains(":") { return ipv6(host) }
        // A fully qualified spelling (`127.0.0.1.`) reaches the same address through libcurl
        // and WHATWG parsers; judging it as the literal only ever refuses more.
        if host.hasSuffix(".") { host = host.dropLast() }
        return ipv4(host)
    }

    /// Reads `text` as `inet_aton` does: 1–4 parts, each decimal, `0x` hex or `0` octal, every
    /// part but the last at most 255, the last at most what the remaining bytes hold.
    static func ipv4(_ text: Substring) -> [UInt8]? {
        var parts: [UInt64] = []
        var remaining = text.utf8[...]
        while true {
            guard let first = remaining.first, isDigit(first) else { return nil }
            var radix: UInt64 = 10
            if first == UInt8(ascii: "0") {
                remaining = remaining.dropFirst()
                if let next = remaining.first, next | 0x20 == UInt8(ascii: "x") {
                    radix = 16
                    remaining = remaining.dropFirst()
                } else {
                    radix = 8
                }
            }
            // `0x` without a digit is no number (inet_aton refuses it in any part).
            var hasDigit = radix != 16
            var value: UInt64 = 0
            while let byte = remaining.first, let digit = digitValue(byte, radix: radix) {
                hasDigit = true
                value = value * radix + digit
                // Larger than any part can be: refuse before it could overflow.
                guard value <= 0xffff_ffff else { return nil }
                remaining = remaining.dropFirst()
            }
            guard hasDigit else { return nil }
            parts.append(value)
            guard let separator = remaining.first else { break }
            // `8` or `9` in an octal part, or any other character: not an address.
            guard separator == UInt8(ascii: "."), parts.count < 4 else { return nil }
            remaining = remaining.dropFirst()
        }
        let leading = parts.dropLast()
        guard leading.allSatisfy({ $0 <= 0xff }) else { return nil }
        let last = parts[parts.count - 1]
        let lastBytes = 4 - leading.count
        guard last < (UInt64(1) << (8 * UInt64(lastBytes))) else { return nil }
        var address = leading.map { UInt8($0) }
        for index in (0..<lastBytes).reversed() {
            address.append(UInt8(truncatingIfNeeded: last >> (8 * UInt64(index))))
        }
        return address
    }

    /// Reads `text` (no brackets; a zone after `%` ignored) with `inet_pton`.
    static func ipv6(_ text: Substring) -> [UInt8]? {
        let bare = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var address = in6_addr()
        let parsed = String(bare).withCString { inet_pton(AF_INET6, $0, &address) }
        guard parsed == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The value of one digit in `radix` (8, 10 or 16), or nil when it is not one.
    private static func digitValue(_ byte: UInt8, radix: UInt64) -> UInt64? {
        if isDigit(byte) {
            let value = UInt64(byte - UInt8(ascii: "0"))
            return value < radix ? value : nil
        }
        let lower = byte | 0x20
        if radix == 16, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "f") {
            return UInt64(lower - UInt8(ascii: "a") + 10)
        }
        return nil
    }
}
