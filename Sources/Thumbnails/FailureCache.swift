import HTTPServer
import Synchronization

/// Recent failures by original URL, answered again without a fetch for ``ttl``, so a broken
/// image host is asked at most once a minute per picture whatever the traffic. Bounded: at
/// ``capacity`` the expired entries go, then everything (a flood of distinct failures).
final class FailureCache: Sendable {
    private struct Failure {
        var error: HTTPError
        var until: ContinuousClock.Instant
    }

    /// How long a failure is remembered.
    let ttl: Duration
    /// Most failures remembered.
    let capacity: Int
    private let failures = Mutex<[String: Failure]>([:])

    init(ttl: Duration = .seconds(60), capacity: Int = 4096) {
        self.ttl = ttl
        self.capacity = capacity
    }

    /// The failure remembered for `url`, if still fresh.
    func lookup(_ url: String) -> HTTPError? {
        let now = ContinuousClock.now
        return failures.withLock { failures in
            guard let failure = failures[url] else { return nil }
            guard failure.until > now else {
                failures.removeValue(forKey: url)
                return nil
            }
            return failure.error
        }
    }

    /// Remembers that `url` failed with `error`.
    func remember(_ error: HTTPError, for url: String) {
        let now = ContinuousClock.now
        failures.withLock { failures in
            if failures.count >= capacity {
                failures = failures.filter { $0.value.until > now }
                if failures.count >= capacity { failures.removeAll() }
            }
            failures[url] = Failure(error: error, until: now + ttl)
        }
    }
}
