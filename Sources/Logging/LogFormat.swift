/// How ``Logger`` writes lines.
public enum LogFormat: String, Sendable, CaseIterable {
    /// Human-readable: `GET /api/items 200 2345B 0.12ms`, `warning: …`.
    case text
    /// One JSON object per line with `time` and `level`, for log collectors.
    case json
}
