import Foundation

/// What an upstream answered.
public enum FetchResponse: Sendable, Equatable {
    /// `304 Not Modified`: nothing changed since the validators sent; `freshFor` as in
    /// ``FetchedBody/freshFor``.
    case notModified(freshFor: Double?)
    /// A `2xx` with its body and what the next conditional request needs.
    case body(FetchedBody)

    /// `304 Not Modified` without freshness information.
    public static let notModified = FetchResponse.notModified(freshFor: nil)
}
