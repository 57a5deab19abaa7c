/// Formatting rules of the Prometheus text format 0.0.4: names, label escaping, numbers.
enum Exposition {
    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (97...122).contains(byte) || (65...90).contains(byte) || (48...57).contains(byte) || byte == 95
                || byte == 58
        }
    }

    /// `{a="1",b="2"}`, or empty without labels; values escaped.
    static func labelText(_ labels: [(String, String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.0)=\"\(escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
    }

    /// Backslash, double quote and line feed are escaped in label values.
    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Backslash and line feed are escaped in help text.
    static func escapeHelp(_ value: String) -> String {
        value.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    /// Integers without a fraction, other values as Swift prints them (which Go parses), `+Inf`.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    static func write(_ source: MetricSource, name: String, labels: String, into out: inout String) {
        switch source {
        case .counter(let counter):
            out += "\(name)\(labels) \(counter.value)\n"
        case .gauge(let gauge):
            out += "\(name)\(labels) \(gauge.value)\n"
        case .sampled(let read):
            out += "\(name)\(labels) \(number(read()))\n"
        case .histogram(let histogram):
            let (cumulative, sum) = histogram.snapshot()
            // `le` goes after the series' own labels, inside the same braces.
            let prefix = labels.isEmpty ? "{" : String(labels.dropLast()) + ","
            for (index, bound) in histogram.bounds.enumerated() {
                out += "\(name)_bucket\(prefix)le=\"\(number(bound))\"} \(cumulative[index])\n"
            }
            out += "\(name)_bucket\(prefix)le=\"+Inf\"} \(cumulative[cumulative.count - 1])\n"
            out += "\(name)_sum\(labels) \(number(sum))\n"
            out += "\(name)_count\(labels) \(cumulative[cumulative.count - 1])\n"
        }
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
