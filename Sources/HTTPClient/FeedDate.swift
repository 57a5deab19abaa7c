public import Foundation

/// Dates as feeds write them: RFC 822/1123 in RSS (with the usual sloppiness: no weekday, one
/// digit days, two digit years, zone names or none, no seconds) and RFC 3339 in Atom and JSON
/// Feed. Parsed by hand: Foundation's formatters are slow and not documented thread-safe.
public enum FeedDate {
    /// An RSS `pubDate` such as `Tue, 10 Jun 2003 04:00:00 GMT`; nil when it is not a date.
    public static func rfc822(_ text: String) -> Date? {
        var words = text.replacingOccurrences(of: ",", with: " ").split(whereSeparator: \.isWhitespace).map(
            String.init)
        if let first = words.first, first.first?.isLetter == true, month(first) == nil { words.removeFirst() }
        guard words.count >= 3 else { return nil }
        var day: Int?
        var monthNumber: Int?
        if let value = Int(words[0]), let name = month(words[1]) {
            (day, monthNumber) = (value, name)
        } else if let name = month(words[0]), let value = Int(words[1]) {
            (day, monthNumber) = (value, name)  // "Jun 10 2003"
        }
        guard let day, let monthNumber, (1...31).contains(day), var year = Int(words[2]) else { return nil }
        if year < 100 { year += year < 50 ? 2000 : 1900 }
        var hour = 0
        var minute = 0
        var second = 0
        var offset = 0
        if words.count >= 4 {
            let clock = words[3].split(separator: ":").map { Int($0) }
            guard clock.count >= 2, clock.allSatisfy({ $0 != nil }) else { return nil }
            hour = clock[0]!
            minute = clock[1]!
            second = clock.count > 2 ? clock[2]! : 0
        }
        if words.count >= 5 {
            guard let zone = zoneOffset(words[4]) else { return nil }
            offset = zone
        }
        return make(year, monthNumber, day, hour, minute, Double(second), offset)
    }

    /// An RFC 3339 / ISO 8601 date-time such as `2003-12-13T18:30:02.25+01:00`; nil otherwise.
    public static func rfc3339(_ text: String) -> Date? {
        let bytes = Array(text.trimmingCharacters(in: .whitespaces).utf8)
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
        guard bytes.count >= 16, [84, 116, 32].contains(bytes[10]), let hour = number(11, 2), bytes[13] == 58,
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

    private static func month(_ word: String) -> Int? {
        let names = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        guard word.count >= 3 else { return nil }
        return names.firstIndex(of: String(word.prefix(3)).lowercased()).map { $0 + 1 }
    }

    private static func zoneOffset(_ zone: String) -> Int? {
        let upper = zone.uppercased()
        let names = [
            "GMT": 0, "UT": 0, "UTC": 0, "Z": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7,
            "MDT": -6,
            "PST": -8, "PDT": -7, "CET": 1, "CEST": 2,
        ]
        if let hours = names[upper] { return hours * 3600 }
        let sign = upper.first == "-" ? -1 : 1
        let digits = upper.drop(while: { $0 == "+" || $0 == "-" }).replacingOccurrences(of: ":", with: "")
        guard upper.first == "+" || upper.first == "-", digits.count == 4, let value = Int(digits) else {
            return upper.allSatisfy(\.isLetter) ? 0 : nil  // an unknown zone name: read as UTC
        }
        return sign * ((value / 100) * 3600 + (value % 100) * 60)
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
