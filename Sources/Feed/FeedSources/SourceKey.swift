public import Foundation

/// A source's stable key: 12 lowercase hex digits of the 64-bit FNV-1a hash of its URL
/// (scheme and host lowercased, fragment dropped). The same URL gives the same key in every
/// process and on every instance, so item ids (`<key>:<feed id>`), `?source=` links and the
/// Redis state stay valid across restarts. 48 bits make a collision among 500 sources about
/// one in a billion; the configuration refuses one anyway.
public enum SourceKey {
    /// The key of `url`.
    public static func of(_ url: URL) -> String {
        StableHash.hex(StableHash.fnv1a(normalized(url)) >> 16, digits: 12)
    }

    /// The URL text the key is computed from.
    public static func normalized(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}
