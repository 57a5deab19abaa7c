import Foundation

/// Failed sign-ins remembered in memory: per address (``ThrottleKey``) and from everywhere,
/// each within its window, plus the attempts being verified right now. Kept under the
/// authority's lock; forgotten at restart (a restart costs an attacker a restart of the
/// server, which they cannot cause).
struct SignInThrottle {
    /// Why an attempt is refused before its password is looked at.
    enum Refusal: Equatable {
        case throttled(retryAfter: Int)
        case busy(retryAfter: Int)
    }

    let policy: OwnerPolicy
    /// Each address's failures within the window, oldest first (at most the limit).
    private(set) var failures: [String: [Date]] = [:]
    /// Attempts of each address being verified now.
    private var pending: [String: Int] = [:]
    /// Failures from everywhere within their window, oldest first (at most the limit).
    private var everywhere: [Date] = []

    init(policy: OwnerPolicy) {
        self.policy = policy
    }

    /// Whether an attempt from `key` may go on to verification at `now`; when it may, it is
    /// counted as pending until ``finish(_:at:failed:)``.
    mutating func admit(_ key: String, at now: Date) -> Refusal? {
        forgetOld(key, at: now)
        let recent = failures[key] ?? []
        if recent.count >= policy.failuresPerAddress, let oldest = recent.first {
            return .throttled(
                retryAfter: Self.seconds(until: oldest + policy.failureWindow.interval, from: now))
        }
        // Attempts already being verified count too: a burst of parallel guesses from one
        // address cannot slip past the limit while the first ones are being checked.
        if recent.count + (pending[key] ?? 0) >= policy.failuresPerAddress {
            return .busy(retryAfter: 1)
        }
        everywhere.removeAll { $0 <= now - policy.everywhereWindow.interval }
        if everywhere.count >= policy.failuresEverywhere, let oldest = everywhere.first {
            return .busy(
                retryAfter: Self.seconds(until: oldest + policy.everywhereWindow.interval, from: now))
        }
        pending[key, default: 0] += 1
        return nil
    }

    /// Ends an admitted attempt that was never verified (no slot freed in time): it counts
    /// neither way.
    mutating func withdraw(_ key: String) {
        if let count = pending[key], count > 1 { pending[key] = count - 1 } else { pending[key] = nil }
    }

    /// Ends an admitted attempt: a failure is remembered, a success forgets the address's
    /// failures.
    mutating func finish(_ key: String, at now: Date, failed: Bool) {
        withdraw(key)
        guard failed else {
            failures[key] = nil
            return
        }
        failures[key, default: []].append(now)
        if failures[key]!.count > policy.failuresPerAddress { failures[key]!.removeFirst() }
        everywhere.append(now)
        if everywhere.count > policy.failuresEverywhere { everywhere.removeFirst() }
        if failures.count > policy.rememberedAddresses { forgetOldest(at: now) }
    }

    /// How many failures `key` has within the window at `now`.
    func failureCount(_ key: String, at now: Date) -> Int {
        (failures[key] ?? []).filter { $0 > now - policy.failureWindow.interval }.count
    }

    /// Drops `key`'s failures that left the window.
    private mutating func forgetOld(_ key: String, at now: Date) {
        guard var recent = failures[key] else { return }
        recent.removeAll { $0 <= now - policy.failureWindow.interval }
        failures[key] = recent.isEmpty ? nil : recent
    }

    /// Keeps the memory bounded: drops every address whose failures all left the window, then,
    /// if still too many, those whose last failure is oldest.
    private mutating func forgetOldest(at now: Date) {
        let start = now - policy.failureWindow.interval
        failures = failures.filter { ($0.value.last ?? .distantPast) > start }
        let excess = failures.count - policy.rememberedAddresses
        guard excess > 0 else { return }
        let oldest = failures.sorted { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }
        for (key, _) in oldest.prefix(excess) { failures[key] = nil }
    }

    /// Whole seconds from `now` to `end`, at least 1 (a `Retry-After` value).
    static func seconds(until end: Date, from now: Date) -> Int {
        max(1, Int((end.timeIntervalSince(now)).rounded(.up)))
    }
}
