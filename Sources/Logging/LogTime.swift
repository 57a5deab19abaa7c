import Foundation

/// The wall-clock time of a log line, `2026-01-31T12:00:00.123Z`, formatted without
/// Foundation's date formatters (this runs once per access line).
enum LogTime {
    static func now() -> String {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return format(seconds: spec.tv_sec, milliseconds: Int(spec.tv_nsec / 1_000_000))
    }

    static func format(seconds: Int, milliseconds: Int) -> String {
        var clock = time_t(seconds)
        var parts = tm()
        gmtime_r(&clock, &parts)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(48 + rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        out.append(45)
        digits(parts.tm_mon + 1, 2)
        out.append(45)
        digits(parts.tm_mday, 2)
        out.append(84)
        digits(parts.tm_hour, 2)
        out.append(58)
        digits(parts.tm_min, 2)
        out.append(58)
        digits(parts.tm_sec, 2)
        out.append(46)
        digits(Int32(milliseconds), 3)
        out.append(90)
        return String(decoding: out, as: UTF8.self)
    }
}
