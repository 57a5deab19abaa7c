/// The text given to one flag (or environment variable), with the checks that turn it into a
/// typed value. Every error names `name`, the flag or variable as the user wrote it.
struct FlagValue {
    /// `--port`, or `PORT` when the value came from the environment.
    let name: String
    let text: String

    func integer(_ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(
                "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// `1`, `0.5`, `500ms`, `2s`, `15m`, `2h`: a delay of at most `maxSeconds`; `minimum` nil
    /// allows 0, `.zero` asks for more than 0.
    func duration(maxSeconds: Double = 600, minimum: Duration? = nil) throws(UsageError) -> Duration {
        var number = text
        var scale = 1.0
        if text.hasSuffix("ms") {
            number = String(text.dropLast(2))
            scale = 0.001
        } else if let unit = text.last, let unitScale = ["s": 1.0, "m": 60, "h": 3600][unit] {
            number = String(text.dropLast())
            scale = unitScale
        }
        guard let value = Double(number), value.isFinite, value >= 0, value * scale <= maxSeconds else {
            let examples = maxSeconds > 600 ? "90s, 15m or 2h" : "1, 0.5, 500ms or 2s"
            throw UsageError(
                "\(name) must be a duration like \(examples) (0 to \(Int(maxSeconds)) seconds), got '\(text)'"
            )
        }
        let duration = Duration.milliseconds(Int64((value * scale * 1000).rounded()))
        if let minimum, minimum == .zero, duration == .zero {
            throw UsageError("\(name) must be more than 0, got '\(text)'")
        }
        if let minimum, duration < minimum {
            throw UsageError("\(name) must be at least \(Self.describe(minimum)), got '\(text)'")
        }
        return duration
    }

    /// One of `words`, as given.
    func choice(_ words: [String]) throws(UsageError) -> String {
        guard words.contains(text) else {
            let quoted = words.map { "'\($0)'" }
            let list = quoted.dropLast().joined(separator: ", ") + " or " + quoted[quoted.count - 1]
            throw UsageError("\(name) must be \(list), got '\(text)'")
        }
        return text
    }

    /// Text that must not be empty: `what` completes "NAME must …".
    func nonEmpty(_ what: String) throws(UsageError) -> String {
        guard !text.isEmpty else { throw UsageError("\(name) must \(what)") }
        return text
    }

    /// A duration as a user writes it: `500ms`, `15s`, `15m`, `2h`.
    static func describe(_ duration: Duration) -> String {
        let milliseconds =
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        if milliseconds == 0 { return "0" }
        for (unit, size) in [("h", Int64(3_600_000)), ("m", 60_000), ("s", 1000)]
        where milliseconds >= size && milliseconds % size == 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }

    static func describe(seconds: Double) -> String {
        describe(.milliseconds(Int64((seconds * 1000).rounded())))
    }
}
