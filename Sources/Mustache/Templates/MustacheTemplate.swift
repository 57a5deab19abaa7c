/// A parsed Mustache template: parse once, render many times from any thread.
///
/// ```swift
/// let template = try MustacheTemplate(string: "Hello {{name}}!")
/// template.render(["name": "World"])  // "Hello World!"
/// ```
///
/// Supports the full spec syntax: variables, sections, inverted sections,
/// comments, set delimiters, partials, dotted names, the implicit iterator,
/// template inheritance (`{{<parent}}`, `{{$block}}`) and dynamic names
/// (`{{>*name}}`, `{{<*name}}`). Lambdas are not supported.
public struct MustacheTemplate: Sendable {
    /// The name given at creation (for library templates, the relative path without extension).
    public let name: String?
    let nodes: [Node]
    let dependencies: [TemplateDependency]

    /// Parses a template.
    ///
    /// - Parameters:
    ///   - string: The template source.
    ///   - name: Used in error messages and by ``MustacheLibrary``.
    /// - Throws: ``MustacheError`` of kind ``MustacheError/Kind/syntax`` with the
    ///   1-based line and column of the problem.
    public init(string: String, name: String? = nil) throws(MustacheError) {
        self.name = name
        (nodes, dependencies) = try TemplateParser.parse(string, templateName: name)
    }

    /// The partial and parent names this template uses literally, in source
    /// order (dynamic `{{>*name}}` references are resolved only at render time).
    public var referencedTemplateNames: [String] {
        dependencies.map(\.name)
    }

    /// Renders the template.
    ///
    /// A partial or parent that is not in `partials` renders as the empty
    /// string, as the Mustache spec requires; use ``MustacheLibrary`` to have
    /// such mistakes reported when templates are loaded.
    public func render(_ context: MustacheValue, partials: [String: MustacheTemplate] = [:]) -> String {
        var output: [UInt8] = []
        render(context, partials: partials, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Renders the template, appending the output to `buffer`.
    ///
    /// Convenient when the result is needed as a `String`; the `[UInt8]`
    /// variant avoids the final conversion.
    public func render(
        _ context: MustacheValue, partials: [String: MustacheTemplate] = [:], into buffer: inout String
    ) {
        buffer.append(render(context, partials: partials))
    }

    /// Renders the template, appending UTF-8 bytes to `buffer`.
    ///
    /// This is the fastest form: the renderer writes straight into `buffer`.
    /// Reuse one buffer across renders (`buffer.removeAll(keepingCapacity: true)`)
    /// to avoid regrowing it for every page.
    public func render(
        _ context: MustacheValue, partials: [String: MustacheTemplate] = [:], into buffer: inout [UInt8]
    ) {
        var renderer = Renderer(context: context, partials: partials)
        renderer.render(nodes, indentation: "", into: &buffer)
    }
}
