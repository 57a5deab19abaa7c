/// What ``XMLStreamReader`` met besides the document's content: the errors libxml2 recovered
/// from, and why it stopped, if it stopped early.
public struct XMLReadReport: Sendable, Equatable {
    /// The first few errors, each as `line N: message` (libxml2's words).
    public var errors: [String] = []
    /// How many errors there were in all (``errors`` keeps at most ``XMLStreamReader/keptErrors``).
    public var errorCount = 0
    /// Whether a root element was seen at all: without one the input is not XML.
    public var sawRoot = false
    /// Set when the reader stopped before the end of the input because a bound was exceeded.
    public var stopped: String?

    /// Creates an empty report.
    public init() {}

    /// One line for logs and `/healthz`: the error count and the first error, or nil if none.
    public var summary: String? {
        guard let first = errors.first else { return nil }
        let count = errorCount == 1 ? "1 XML error" : "\(errorCount) XML errors"
        return "recovered from \(count) (first: \(first))"
    }
}
