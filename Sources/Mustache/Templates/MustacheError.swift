/// An error from parsing templates, loading a library, reading JSON or
/// encoding a context.
///
/// ``description`` is one line in the familiar compiler format, for example
/// `Templates/page.mustache:12:5: unclosed section 'items'`.
public struct MustacheError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for callers that react to specific failures.
    public enum Kind: Sendable, Equatable {
        /// The template text is not valid Mustache.
        case syntax
        /// A template refers to a partial or parent that the library does not contain.
        case missingTemplate(String)
        /// ``MustacheLibrary/render(_:template:)`` was asked for a name it does not have.
        case unknownTemplate(String)
        /// JSON input could not be parsed.
        case invalidJSON
        /// A value could not be converted into a ``MustacheValue``.
        case unsupportedValue
        /// A file or directory could not be read.
        case fileSystem
    }

    /// The category of the failure.
    public let kind: Kind
    /// A human-readable explanation without location information.
    public let message: String
    /// The template's name (for library templates, its relative path without extension).
    public let templateName: String?
    /// The file the error was found in, when it came from a file.
    public let path: String?
    /// 1-based line of the offending text, when known.
    public let line: Int?
    /// 1-based column (in characters) of the offending text, when known.
    public let column: Int?

    /// Creates an error; all location parts are optional.
    public init(
        kind: Kind,
        message: String,
        templateName: String? = nil,
        path: String? = nil,
        line: Int? = nil,
        column: Int? = nil
    ) {
        self.kind = kind
        self.message = message
        self.templateName = templateName
        self.path = path
        self.line = line
        self.column = column
    }

    /// `path-or-name:line:column: message`, omitting the parts that are unknown.
    public var description: String {
        var location = path ?? templateName ?? ""
        if let line, let column {
            location += location.isEmpty ? "\(line):\(column)" : ":\(line):\(column)"
        }
        return location.isEmpty ? message : "\(location): \(message)"
    }

    /// A copy that names the file the error belongs to.
    func with(path: String) -> MustacheError {
        MustacheError(
            kind: kind, message: message, templateName: templateName, path: path,
            line: line, column: column)
    }
}
