import Feed
import FeedParsing
public import Foundation
public import HTTPClient

/// When a source is fetched next: the politeness rules, as pure functions of its state, the
/// time and a random number, shared by pulls and the schedule.
///
/// - **Interval.** `base` for a busy feed; for one whose items rarely change, half of the
///   longer of its smoothed gap between new items and its current quiet spell, up to
///   `maxInterval` (24 h). A feed quiet for a day is fetched about every 12 h.
/// - **Spread.** Fetch times fall on slots of the interval shifted by a fraction derived from
///   the source's key, so sources are spread over the interval (and a pull that fetched them all
///   at once does not line them up), the same on every instance.
/// - **Freshness.** Never before `max-age`/`Expires`, nor before RSS `<ttl>` minutes.
/// - **Back-off.** A failing source waits `base × 2^(failures−1)`, jittered by ±25%, capped
///   at `maxBackoff` (6 h); one success resets it. `Retry-After` is honoured by pulls too.
/// - **Skips.** A next fetch inside RSS `<skipHours>`/`<skipDays>` (GMT) moves to the first
///   hour outside them.
public struct RefreshPolicy: Sendable {
    /// The base interval (`--refresh-every`).
    public var base: Double
    /// The adaptive interval's cap.
    public var maxInterval: Double = 24 * 3600
    /// The back-off's cap.
    public var maxBackoff: Double = 6 * 3600

    /// Creates a policy with `base` seconds between fetches of a busy feed.
    public init(base: Double) {
        self.base = max(base, 0.001)
    }

    /// Whether the schedule fetches the source at `now` (within `window` seconds of its slot).
    public func isDue(_ state: SourceState, key: String, now: Date, window: Double) -> Bool {
        if let notBefore = state.notBefore, notBefore > now { return false }
        if let fresh = state.freshUntil, fresh > now { return false }
        // Without a next fetch the schedule has never seen it: due now. (Every fetch, pulls
        // included, sets one on a slot of its own, which is what spreads the sources.)
        guard let next = state.nextFetch else { return true }
        return next.timeIntervalSince(now) <= window
    }

    /// Whether a pull may fetch it: only `Retry-After` holds a pull back.
    public func mayPull(_ state: SourceState, now: Date) -> Bool {
        state.notBefore.map { $0 <= now } ?? true
    }

    /// The state after a successful fetch (`newItems`: it brought items not seen before).
    public func succeeded(
        _ state: SourceState, key: String, now: Date, newItems: Bool, freshFor: Double?
    ) -> SourceState {
        var next = state
        next.lastSuccess = now
        next.lastError = nil
        next.failingSince = nil
        next.failures = 0
        next.notBefore = nil
        if newItems {
            if let last = state.lastNewItems {
                let gap = now.timeIntervalSince(last)
                next.meanGap = state.meanGap.map { 0.7 * $0 + 0.3 * gap } ?? gap
            }
            next.lastNewItems = now
        }
        let ttl = Double(next.hints.ttlMinutes ?? 0) * 60
        let fresh = max(freshFor ?? 0, ttl)
        next.freshUntil = fresh > 0 ? now.addingTimeInterval(fresh) : nil
        let interval = adaptiveInterval(next, now: now)
        var at = slot(after: now, key: key, interval: interval, minimumWait: interval / 2)
        if let freshUntil = next.freshUntil, freshUntil > at { at = freshUntil }
        next.nextFetch = skipping(at, hints: next.hints)
        return next
    }

    /// The state after a failed fetch; `random` in 0..<1 draws the jitter.
    public func failed(_ state: SourceState, now: Date, error: UpstreamError, random: Double) -> SourceState {
        var next = state
        next.failures = state.failures + 1
        next.lastError = error.message
        if state.failingSince == nil { next.failingSince = now }
        let exponent = Double(min(next.failures - 1, 40))
        let backoff = min(maxBackoff, base * pow(2, exponent))
        let jittered = min(maxBackoff, backoff * (0.75 + 0.5 * random))
        var at = now.addingTimeInterval(jittered)
        if let wait = error.retryAfter {
            let until = now.addingTimeInterval(wait)
            next.notBefore = until
            if until > at { at = until }
        }
        next.nextFetch = skipping(at, hints: next.hints)
        return next
    }

    /// Seconds between scheduled fetches of this source now.
    public func adaptiveInterval(_ state: SourceState, now: Date) -> Double {
        let quiet = state.lastNewItems.map { now.timeIntervalSince($0) } ?? 0
        let estimate = max(state.meanGap ?? 0, quiet) / 2
        return min(max(estimate, base), max(maxInterval, base))
    }

    /// The first slot `offset(key) + k × interval` (seconds since 1970) at least `minimumWait`
    /// after `now`.
    func slot(after now: Date, key: String, interval: Double, minimumWait: Double) -> Date {
        let offset = Self.fraction(key) * interval
        let earliest = now.timeIntervalSince1970 + minimumWait
        let k = ((earliest - offset) / interval).rounded(.up)
        return Date(timeIntervalSince1970: offset + k * interval)
    }

    /// A key's place in the interval, 0..<1: its hash through a 64-bit finalizer (splitmix64's),
    /// since keys of similar URLs share their leading digits.
    static func fraction(_ key: String) -> Double {
        var mixed = StableHash.fnv1a(key)
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        mixed ^= mixed >> 31
        return Double(mixed >> 11) / Double(UInt64(1) << 53)
    }

    /// `date`, or the start of the first hour after it outside the feed's skipped hours and days.
    func skipping(_ date: Date, hints: FeedHints) -> Date {
        guard !hints.skipHours.isEmpty || !hints.skipDays.isEmpty else { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        var candidate = date
        for _ in 0..<(24 * 8) {
            let hour = calendar.component(.hour, from: candidate)
            let day = calendar.component(.weekday, from: candidate)
            if !hints.skipHours.contains(hour) && !hints.skipDays.contains(day) { return candidate }
            let hourStart = calendar.dateInterval(of: .hour, for: candidate)?.start ?? candidate
            candidate = hourStart.addingTimeInterval(3600)
        }
        return date
    }
}
