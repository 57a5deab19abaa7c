/// What values a flag takes. The typed constructors of ``Flag`` make the kind from the same bounds
/// the value is checked against, so `--help`, the doc and the parser cannot disagree.
enum FlagKind: Sendable {
    /// No value: the flag alone turns something on.
    case toggle
    /// An integer within the range.
    case integer(ClosedRange<Int>)
    /// A duration of at most `maxSeconds`; `minimum` nil allows 0, `.zero` means more than 0.
    case duration(maxSeconds: Double, minimum: Duration?)
    /// One of these words.
    case choice([String])
    /// Free text checked by the flag itself: what it accepts in words, a value it takes and one
    /// it refuses (nil when it takes any text).
    case text(accepts: String, example: String, refused: String?)

    /// The accepted values in words, for the doc (Markdown).
    var accepts: String {
        switch self {
        case .toggle: "—"
        case .integer(let range): "integer, \(range.lowerBound) to \(range.upperBound)"
        case .duration(let maxSeconds, let minimum):
            switch minimum {
            case nil: "duration, 0 to \(FlagValue.describe(seconds: maxSeconds))"
            case .zero?: "duration, more than 0, up to \(FlagValue.describe(seconds: maxSeconds))"
            case let least?:
                "duration, \(FlagValue.describe(least)) to \(FlagValue.describe(seconds: maxSeconds))"
            }
        case .choice(let words): words.map { "`\($0)`" }.joined(separator: ", ")
        case .text(let accepts, _, _): accepts
        }
    }

    /// A value the flag takes that is not its default (for the tests).
    func example(unlike defaultValue: String?) -> String {
        switch self {
        case .toggle: ""
        case .integer(let range):
            String(defaultValue == String(range.lowerBound) ? range.upperBound : range.lowerBound)
        case .duration: defaultValue == "250ms" ? "300ms" : "250ms"
        case .choice(let words): words.first { $0 != defaultValue } ?? words[0]
        case .text(_, let example, _): example
        }
    }

    /// A value the flag refuses (for the tests); nil when it takes any value.
    var refused: String? {
        switch self {
        case .toggle: nil
        case .integer(let range): String(range.upperBound + 1)
        case .duration: "soon"
        case .choice: "neither"
        case .text(_, _, let refused): refused
        }
    }
}
