import Foundation

/// What an upstream's response headers say about when to ask again: freshness
/// (`Cache-Control: max-age`, `Expires`) and `Retry-After`. Pure functions over header text.
enum CacheHeaders {
    /// The longest wait any header may impose: a week. A year-long `max-age` on a feed is a
    /// misconfiguration, and the adaptive interval's own cap (24 h) is far below it anyway.
    static let longestWait: Double = 7 * 24 * 3600

    /// Seconds the response stays fresh: `max-age` (`no-cache`/`no-store` → 0) wins over
    /// `Expires` minus `Date` (RFC 9111 §4.2.1); nil when neither says. `date` is read only
    /// for an `Expires`.
    static func freshness(cacheControl: String?, expires: String?, date: @autoclosure () -> String?)
        -> Double?
    {
        if let cacheControl {
            for directive in cacheControl.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
                if name == "no-cache" || name == "no-store" { return 0 }
                if name == "max-age", parts.count == 2,
                    let seconds = Double(
                        parts[1].trimmingCharacters(in: CharacterSet(charactersIn: " \t\""))),
                    seconds.isFinite, seconds >= 0
                {
                    return min(seconds, longestWait)
                }
            }
        }
        guard let expires else { return nil }
        // An invalid Expires (often "0" or "-1") means already expired.
        guard let expiry = FeedDate.rfc822(expires) else { return 0 }
        let served = date().flatMap(FeedDate.rfc822) ?? Date()
        return min(max(0, expiry.timeIntervalSince(served)), longestWait)
    }

    /// Seconds from a `Retry-After` value: delay-seconds or an HTTP-date; nil when absent or
    /// unreadable.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Double? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return min(seconds, longestWait) }
        guard let date = FeedDate.rfc822(text) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), longestWait)
    }
}
