/// A route path such as `/api/items`, `/items/:id` or `/static/*`.
///
/// `:name` captures one segment; a trailing `*` captures the rest of the path (possibly empty)
/// under the parameter name `*`.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        case rest
    }

    let segments: [Segment]

    /// Whether the pattern has no parameters or wildcard, so it matches exactly one path.
    let isLiteral: Bool

    /// The pattern as written.
    public let description: String

    /// Parses a pattern; it must start with `/`, and `*` may only be last.
    public init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route patterns start with '/': \(pattern)")
        description = pattern
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var segments: [Segment] = []
        for (index, part) in parts.enumerated() {
            if part == "*" {
                precondition(index == parts.count - 1, "'*' must be the last segment: \(pattern)")
                segments.append(.rest)
            } else if part.hasPrefix(":") {
                segments.append(.parameter(String(part.dropFirst())))
            } else {
                segments.append(.literal(String(part)))
            }
        }
        self.segments = segments
        isLiteral = segments.allSatisfy {
            if case .literal = $0 { return true }
            return false
        }
    }

    /// Matches a decoded path, returning captured parameters, or nil. A trailing slash is
    /// significant: `/api/items/` does not match `/api/items`. Walks the bytes in place: this
    /// runs for several routes on every request, so it allocates only for captured values.
    func match(_ path: String) -> [String: String]? {
        let bytes = path.utf8
        guard bytes.first == 47 else { return nil }
        var parameters: [String: String] = [:]
        var start = bytes.index(after: bytes.startIndex)
        for (position, segment) in segments.enumerated() {
            if case .rest = segment {
                parameters["*"] = String(Substring(bytes[start...]))
                return parameters
            }
            let end = bytes[start...].firstIndex(of: 47) ?? bytes.endIndex
            let part = bytes[start..<end]
            switch segment {
            case .literal(let literal):
                guard part.elementsEqual(literal.utf8) else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(Substring(part))
            case .rest:
                break
            }
            if end == bytes.endIndex {
                // The path ends here; so must the pattern.
                return position == segments.count - 1 ? parameters : nil
            }
            start = bytes.index(after: end)
        }
        return nil
    }
}
