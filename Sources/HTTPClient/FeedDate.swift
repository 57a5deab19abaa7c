public import Foundation

/// Dates as feeds write them: RFC 822/1123 in RSS (with the usual sloppiness: no weekday, one
/// digit days, two digit years, zone names or none, no seconds) and RFC 3339 in Atom and JSON
/// Feed. Parsed by hand: Foundation's formatters are slow and not documented thread-safe.
public enum FeedDate {
    /// An RSS `pubDate` such as `Tue, 10 Jun 2003 04:00:00 GMT`; nil when it is not a date.
    /// Read from the UTF-8 bytes in place: a 16 MiB feed has 8,000 of these, and this makes no
    /// string, array or dictionary per call.
    public static func rfc822(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 6) { words in
                rfc822(bytes, words: words)
            }
        }
    }

    /// The date in `bytes`, given room for its first six words (commas count as spaces).
    private static func rfc822(
        _ bytes: UnsafeBufferPointer<UInt8>, words: UnsafeMutableBufferPointer<Range<Int>>
    )
        -> Date?
    {
        var count = 0
        var index = 0
        while index < bytes.count, count < words.count {
            while index < bytes.count, isSeparator(bytes[index]) { index += 1 }
            let start = index
            while index < bytes.count, !isSeparator(bytes[index]) { index += 1 }
            if index > start {
                words[count] = start..<index
                count += 1
            }
        }
        // A leading weekday ("Tue", "Tuesday"), in any language, is skipped.
        var first = 0
        if count > 0, isLetter(bytes[words[0].lowerBound]), month(bytes, words[0]) == nil { first = 1 }
        guard count - first >= 3 else { return nil }
        let (word0, word1, word2) = (words[first], words[first + 1], words[first + 2])
        var day: Int?
        var monthNumber: Int?
        if let value = integer(bytes, word0), let name = month(bytes, word1) {
            (day, monthNumber) = (value, name)
        } else if let name = month(bytes, word0), let value = integer(bytes, word1) {
            (day, monthNumber) = (value, name)  // "Jun 10 2003"
        }
        guard let day, let monthNumber, (1...31).contains(day), var year = integer(bytes, word2) else {
            return nil
        }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        var clock = (hour: 0, minute: 0, second: 0)
        if count - first >= 4 {
            guard let time = self.clock(bytes, words[first + 3]) else { return nil }
            clock = time
        }
        var offset = 0
        if count - first >= 5 {
            guard let zone = zoneOffset(bytes, words[first + 4]) else { return nil }
            offset = zone
        }
        return make(year, monthNumber, day, clock.hour, clock.minute, Double(clock.second), offset)
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x2C || (0x09...0x0D).contains(byte)
    }

    /// An ASCII letter, or a byte of a non-ASCII character (a weekday or zone name in another
    /// script counts as letters).
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte >= 0x80
    }

    /// A decimal number with an optional sign, filling the whole range; nil otherwise.
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        var sign = 1
        if index < range.upperBound, bytes[index] == 0x2B || bytes[index] == 0x2D {
            sign = bytes[index] == 0x2D ? -1 : 1
            index += 1
        }
        guard index < range.upperBound, range.upperBound - index <= 9 else { return nil }
        var value = 0
        while index < range.upperBound {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else { return nil }
            value = value * 10 + Int(digit)
            index += 1
        }
        return sign * value
    }

    /// `hh:mm` or `hh:mm:ss` (more `:`-separated numbers are allowed and ignored, empty ones
    /// skipped).
    private static func clock(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
        -> (hour: Int, minute: Int, second: Int)?
    {
        var parts = (0, 0, 0)
        var found = 0
        var start = range.lowerBound
        for index in range.lowerBound...range.upperBound
        where index == range.upperBound || bytes[index] == 0x3A {
            defer { start = index + 1 }
            guard index > start else { continue }
            guard let value = integer(bytes, start..<index) else { return nil }
            switch found {
            case 0: parts.0 = value
            case 1: parts.1 = value
            case 2: parts.2 = value
            default: break
            }
            found += 1
        }
        return found >= 2 ? parts : nil
    }

    /// 1…12 for a word whose first three letters name a month in English, any case.
    private static func month(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard range.count >= 3 else { return nil }
        let key =
            Int(bytes[range.lowerBound] | 0x20) << 16 | Int(bytes[range.lowerBound + 1] | 0x20) << 8
            | Int(bytes[range.lowerBound + 2] | 0x20)
        return monthKeys.firstIndex(of: key).map { $0 + 1 }
    }

    /// "jan" … "dec", three lower-case ASCII letters in one number each.
    private static let monthKeys: [Int] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .map { name in name.utf8.reduce(0) { $0 << 8 | Int($1) } }

    /// Zone names RSS feeds use, in hours from UTC.
    private static let zoneNames: [(name: [UInt8], hours: Int)] = [
        ("GMT", 0), ("UT", 0), ("UTC", 0), ("Z", 0), ("EST", -5), ("EDT", -4), ("CST", -6), ("CDT", -5),
        ("MST", -7), ("MDT", -6), ("PST", -8), ("PDT", -7), ("CET", 1), ("CEST", 2),
    ].map { (Array($0.0.utf8), $0.1) }

    /// A zone's offset in seconds: a name above, `+hhmm` or `-hh:mm`; an unknown name is UTC.
    private static func zoneOffset(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        let word = UnsafeBufferPointer(rebasing: bytes[range])
        for zone in zoneNames
        where zone.name.count == word.count && zip(zone.name, word).allSatisfy({ $0 == $1 & 0xDF }) {
            return zone.hours * 3600
        }
        let sign = word[0] == 0x2D ? -1 : 1
        guard word[0] == 0x2B || word[0] == 0x2D else {
            // An unknown zone name: read as UTC.
            return word.allSatisfy(isLetter) ? 0 : nil
        }
        var digits = 0
        var value = 0
        for byte in word.drop(while: { $0 == 0x2B || $0 == 0x2D }) where byte != 0x3A {
            let digit = byte &- 0x30
            guard digit <= 9 else { return nil }
            value = value * 10 + Int(digit)
            digits += 1
        }
        guard digits == 4 else { return nil }
        return sign * ((value / 100) * 3600 + (value % 100) * 60)
    }

    /// An RFC 3339 / ISO 8601 date-time such as `2003-12-13T18:30:02.25+01:00`; nil otherwise.
    public static func rfc3339(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { all in
            // Surrounding whitespace (an Atom `<updated>` on its own line) is not part of it.
            var start = all.startIndex
            var end = all.endIndex
            while start < end, isSeparator(all[start]), all[start] != 0x2C { start += 1 }
            while end > start, isSeparator(all[end - 1]), all[end - 1] != 0x2C { end -= 1 }
            return rfc3339(UnsafeBufferPointer(rebasing: all[start..<end]))
        }
    }

    private static func rfc3339(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), bytes.count >= 10, bytes[4] == 45, let month = number(5, 2),
            bytes[7] == 45,
            let day = number(8, 2)
        else { return nil }
        if bytes.count == 10 { return make(year, month, day, 0, 0, 0, 0) }
        guard bytes.count >= 16, bytes[10] == 84 || bytes[10] == 116 || bytes[10] == 32,
            let hour = number(11, 2), bytes[13] == 58,
            let minute = number(14, 2)
        else { return nil }
        var index = 16
        var seconds = 0.0
        if index < bytes.count, bytes[index] == 58 {
            guard let whole = number(17, 2) else { return nil }
            seconds = Double(whole)
            index = 19
            if index < bytes.count, bytes[index] == 46 {
                var fraction = 0.0
                var scale = 0.1
                index += 1
                while index < bytes.count, (48...57).contains(bytes[index]) {
                    fraction += Double(bytes[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
                seconds += fraction
            }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        if bytes[index] == 90 || bytes[index] == 122 {
            guard index + 1 == bytes.count else { return nil }
        } else if bytes[index] == 43 || bytes[index] == 45, let hours = number(index + 1, 2) {
            let minutes: Int?
            if index + 3 < bytes.count, bytes[index + 3] == 58 {
                minutes = number(index + 4, 2)
                guard index + 6 == bytes.count else { return nil }
            } else {
                minutes = number(index + 3, 2)
                guard index + 5 == bytes.count else { return nil }
            }
            guard let minutes else { return nil }
            offset = (hours * 60 + minutes) * 60 * (bytes[index] == 45 ? -1 : 1)
        } else {
            return nil
        }
        return make(year, month, day, hour, minute, seconds, offset)
    }

    /// Days from the civil date (proleptic Gregorian), then seconds, minus the zone's offset.
    private static func make(
        _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Double, _ offset: Int
    ) -> Date? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
            (0...59).contains(minute),
            second < 61, (1...9999).contains(year)
        else { return nil }
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 - offset) + second
        return Date(timeIntervalSince1970: seconds)
    }
}
