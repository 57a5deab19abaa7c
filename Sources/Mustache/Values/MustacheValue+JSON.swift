public import Foundation

extension MustacheValue {
    /// Parses a JSON document into a context.
    ///
    /// Any JSON value is accepted at the top level. Numbers keep the text they
    /// were written with (`1.50` renders as `1.50`), `true`/`false` become
    /// ``MustacheValue/bool(_:)`` and never numbers, and a repeated object key
    /// keeps its last value. Errors carry the 1-based line and column.
    public init(json: Data) throws(MustacheError) {
        self = try JSONParser.parse([UInt8](json))
    }

    /// Parses JSON text; see ``init(json:)-(Data)``.
    public init(json: String) throws(MustacheError) {
        self = try JSONParser.parse(Array(json.utf8))
    }
}
