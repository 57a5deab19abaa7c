import Foundation

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
    /// significant: `/api/items/` does not match `/api/items`. Runs for several routes on every
    /// request, so it walks the path's bytes in place (a buffer, not `UTF8View`'s indices) and
    /// allocates only for captured values.
    func match(_ path: String) -> [String: String]? {
        if let matched = path.utf8.withContiguousStorageIfAvailable({ match(bytes: $0) }) { return matched }
        return Array(path.utf8).withUnsafeBufferPointer { match(bytes: $0) }
    }

    /// Whether `text` is exactly `bytes` (of the same length), compared as memory.
    private static func bytes(of text: String, equal bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let compared = text.utf8.withContiguousStorageIfAvailable { own -> Bool in
            guard let left = own.baseAddress, let right = bytes.baseAddress else {
                return own.count == bytes.count
            }
            return memcmp(left, right, bytes.count) == 0
        }
        return compared ?? text.utf8.elementsEqual(bytes)
    }

    private func match(bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        guard bytes.first == 47 else { return nil }
        var parameters: [String: String] = [:]
        var start = 1
        for (position, segment) in segments.enumerated() {
            if case .rest = segment {
                parameters["*"] = String(
                    decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
                return parameters
            }
            var end = start
            while end < bytes.count, bytes[end] != 47 { end += 1 }
            let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
            switch segment {
            case .literal(let literal):
                guard literal.utf8.count == part.count, Self.bytes(of: literal, equal: part) else {
                    return nil
                }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(decoding: part, as: UTF8.self)
            case .rest:
                break
            }
            if end == bytes.count {
                // The path ends here; so must the pattern.
                return position == segments.count - 1 ? parameters : nil
            }
            start = end + 1
        }
        return nil
    }
}
