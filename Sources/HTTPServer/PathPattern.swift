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
    }

    /// Matches a decoded path, returning captured parameters, or nil. A trailing slash is
    /// significant: `/api/items/` does not match `/api/items`.
    func match(_ path: String) -> [String: String]? {
        let parts = path.utf8.split(separator: 47, omittingEmptySubsequences: false).dropFirst()
        var parameters: [String: String] = [:]
        var index = parts.startIndex
        for segment in segments {
            if case .rest = segment {
                parameters["*"] = parts[index...].map { String(Substring($0)) }.joined(separator: "/")
                return parameters
            }
            guard index != parts.endIndex else { return nil }
            let part = parts[index]
            switch segment {
            case .literal(let literal):
                guard part.elementsEqual(literal.utf8) else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(Substring(part))
            case .rest:
                break
            }
            index = parts.index(after: index)
        }
        return index == parts.endIndex ? parameters : nil
    }
}
