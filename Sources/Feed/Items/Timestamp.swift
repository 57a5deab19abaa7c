public import Foundation

/// ISO 8601 timestamps in UTC, written by hand: formatting runs per item per render, and
/// Foundation's formatters are slow and not documented as thread-safe on Linux.
public enum Timestamp {
    /// `2026-01-31T12:00:00Z` (seconds precision).
    public static func iso(_ date: Date) -> String {
        format(date, dateTimeSeparator: 84, tail: .seconds)
    }

    /// `2026-01-31 12:00 UTC`, for people; UTC keeps cached pages identical for every reader.
    public static func display(_ date: Date) -> String {
        format(date, dateTimeSeparator: 32, tail: .utc)
    }

    private enum Tail {
        /// `:SSZ`
        case seconds
        /// ` UTC`
        case utc
    }

    /// `YYYY-MM-DD?HH:MM` plus the tail, always 20 bytes for years 0–9999, written into the
    /// string's own storage.
    private static func format(_ date: Date, dateTimeSeparator: UInt8, tail: Tail) -> String {
        let parts = components(date)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else {
            let end = tail == .seconds ? ":\(pad(parts.tm_sec))Z" : " UTC"
            return "\(year)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))"
                + "\(Character(Unicode.Scalar(dateTimeSeparator)))\(pad(parts.tm_hour)):\(pad(parts.tm_min))\(end)"
        }
        return String(unsafeUninitializedCapacity: 20) { out in
            digits4(year, out, 0)
            out[4] = 45
            digits2(parts.tm_mon + 1, out, 5)
            out[7] = 45
            digits2(parts.tm_mday, out, 8)
            out[10] = dateTimeSeparator
            digits2(parts.tm_hour, out, 11)
            out[13] = 58
            digits2(parts.tm_min, out, 14)
            switch tail {
            case .seconds:
                out[16] = 58
                digits2(parts.tm_sec, out, 17)
                out[19] = 90
            case .utc:
                out[16] = 32
                out[17] = 85
                out[18] = 84
                out[19] = 67
            }
            return 20
        }
    }

    private static func digits2(_ value: Int32, _ out: UnsafeMutableBufferPointer<UInt8>, _ at: Int) {
        out[at] = UInt8(truncatingIfNeeded: 48 + value / 10)
        out[at + 1] = UInt8(truncatingIfNeeded: 48 + value % 10)
    }

    private static func digits4(_ value: Int, _ out: UnsafeMutableBufferPointer<UInt8>, _ at: Int) {
        out[at] = UInt8(truncatingIfNeeded: 48 + value / 1000)
        out[at + 1] = UInt8(truncatingIfNeeded: 48 + value / 100 % 10)
        out[at + 2] = UInt8(truncatingIfNeeded: 48 + value / 10 % 10)
        out[at + 3] = UInt8(truncatingIfNeeded: 48 + value % 10)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ length: Int) -> Int? {
            guard start + length <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<start + length] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == 45, let month = number(5, 2), bytes[7] == 45,
            let day = number(8, 2), bytes[10] == 84 || bytes[10] == 116, let hour = number(11, 2),
            bytes[13] == 58,
            let minute = number(14, 2), bytes[16] == 58, let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 90, 122:
            index += 1
        case 43, 45:
            guard let hours = number(index + 1, 2), bytes.count > index + 3, bytes[index + 3] == 58,
                let minutes = number(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 45 ? -1 : 1)
            index += 6
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        // timegm normalises impossible dates (Feb 30 → Mar 2); reject them instead.
        guard parts.tm_mday == Int32(day), parts.tm_mon == Int32(month - 1) else { return nil }
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    private static func components(_ date: Date) -> tm {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return parts
    }

    private static func pad(_ value: Int32, _ width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
