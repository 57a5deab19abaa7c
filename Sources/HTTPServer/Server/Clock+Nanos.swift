import Foundation

enum MonotonicClock {
    /// Nanoseconds from CLOCK_MONOTONIC; cheap enough to call twice per request.
    static func nanos() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
