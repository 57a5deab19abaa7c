import Feed
import FeedParsing
import Foundation

/// What a person pasted, made an address to fetch: trimmed, a bare `example.com` taken as
/// `https://example.com/`, only http and https, with a host, and at most 2,048 bytes.
enum SubscriptionAddress {
    /// The longest address taken, in bytes (UTF-8).
    static let maxBytes = 2048

    /// The URL `text` stands for; throws ``Feed/SubscriptionError/Code/badAddress`` saying why not.
    static func normalize(_ text: String) throws(SubscriptionError) -> URL {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw bad("Paste the address of a feed or of a site.") }
        guard trimmed.utf8.count <= maxBytes else {
            throw bad("The address is longer than \(maxBytes) bytes.")
        }
        var candidate = trimmed
        if let separator = trimmed.range(of: "://") {
            let scheme = trimmed[..<separator.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw bad("Only http:// and https:// addresses can be subscribed to.")
            }
        } else if let colon = trimmed.firstIndex(of: ":"), isScheme(trimmed[..<colon]),
            trimmed[trimmed.index(after: colon)...].first?.isASCII != true
                || trimmed[trimmed.index(after: colon)...].first?.isNumber != true
        {
            // `mailto:…`, `javascript:…`: a scheme, not a host and port (`example.com:8080`).
            throw bad("Only http:// and https:// addresses can be subscribed to.")
        } else {
            // A bare name (`example.com`, `example.com/blog`) means the site over HTTPS.
            candidate = "https://" + trimmed
        }
        guard var components = URLComponents(string: candidate), let host = components.host, !host.isEmpty
        else {
            throw bad("That is not a web address.")
        }
        if components.path.isEmpty { components.path = "/" }
        guard let url = components.url, Subscription.isAcceptable(url) else {
            throw bad("That is not a web address.")
        }
        guard url.absoluteString.utf8.count <= maxBytes else {
            throw bad("The address is longer than \(maxBytes) bytes.")
        }
        return url
    }

    /// Whether `text` has the shape of a URL scheme (a letter, then letters, digits, `+-.`).
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return false
        }
        return text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
                    || "+-.".unicodeScalars.contains($0))
        }
    }

    private static func bad(_ message: String) -> SubscriptionError {
        SubscriptionError(.badAddress, message)
    }
}
