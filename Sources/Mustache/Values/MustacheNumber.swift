/// A number in a render context, kept in the textual form it will be rendered in.
///
/// Mustache only ever prints numbers, so the text is the source of truth: a JSON
/// `1.50` stays `1.50` and a large integer never loses digits to `Double`.
/// Numbers built from Swift values use the shortest text that round-trips
/// (`1.21` → `"1.21"`, `2.0` → `"2"`). Equality compares the text, so
/// `1.0` and `1` are different numbers.
public struct MustacheNumber: Sendable, Hashable, CustomStringConvertible {
    /// The text written into the output when the number is interpolated.
    public let text: String

    /// Creates a number from an integer.
    public init(_ value: some BinaryInteger) {
        text = String(value)
    }

    /// Creates a number from a floating-point value.
    ///
    /// Whole values print without a fractional part (`2.0` → `"2"`) so that
    /// a count that went through a `Double` still reads naturally; other
    /// values use Swift's shortest round-tripping representation. Returns
    /// `nil` for NaN and infinities, which have no JSON or textual number form.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        // 2^53 is the largest range where every integer is exactly representable.
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            text = String(Int64(value))
        } else {
            text = String(value)
        }
    }

    /// Creates a number from a `Float`, using `Float`'s own shortest text so
    /// that `0.1` does not turn into `0.100000001`.
    public init?(_ value: Float) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 16_777_216 {
            text = String(Int64(value))
        } else {
            text = String(value)
        }
    }

    /// Creates a number from text that must follow the JSON number grammar
    /// (for example `-12`, `1.50`, `6.02e23`); returns `nil` otherwise.
    public init?(text: String) {
        guard JSONParser.isValidNumber(Array(text.utf8)) else { return nil }
        self.text = text
    }

    /// Wraps text already validated by the caller.
    init(validatedText: String) {
        text = validatedText
    }

    /// The numeric value, for code that needs to compute with the number.
    public var doubleValue: Double? { Double(text) }

    /// The textual form, identical to ``text``.
    public var description: String { text }
}
