import Foundation

/// What an upstream answered.
public enum FetchResponse: Sendable, Equatable {
    /// `304 Not Modified`: nothing changed since the validators sent.
    case notModified
    /// A `2xx` with its body and what the next conditional request needs.
    case body(FetchedBody)
}
