public import Foundation

/// A set of named templates that include each other as partials and parents.
///
/// ```swift
/// let library = try MustacheLibrary(directory: URL(fileURLWithPath: "Templates"))
/// let html = try library.render(context, template: "page")
/// ```
///
/// Names are relative paths without the `.mustache` extension
/// (`Templates/partials/item.mustache` is `partials/item`), and `{{>partials/item}}`
/// or `{{<layouts/base}}` resolve by that name. By default every literal
/// partial or parent name is checked when the library is created.
public struct MustacheLibrary: Sendable {
    private let templates: [String: MustacheTemplate]

    /// Loads every `*.mustache` file under `directory`, recursively; other files are ignored.
    ///
    /// - Throws: ``MustacheError`` naming the file (as `directory`'s path plus the
    ///   relative path), line and column for syntax errors and, unless
    ///   `missingTemplates` is ``MissingTemplatePolicy/renderEmpty``, for
    ///   references to templates that do not exist.
    public init(directory: URL, missingTemplates: MissingTemplatePolicy = .failAtLoad) throws(MustacheError) {
        let fileManager = FileManager.default
        var root = directory.relativePath
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory),
            isDirectory.boolValue,
            let enumerator = fileManager.enumerator(atPath: directory.path)
        else {
            throw MustacheError(kind: .fileSystem, message: "cannot read template directory '\(root)'")
        }
        var relativePaths: [String] = []
        while let relativePath = enumerator.nextObject() as? String {
            guard relativePath.hasSuffix(".mustache") else { continue }
            var isSubdirectory: ObjCBool = false
            let fullPath = directory.appendingPathComponent(relativePath).path
            if fileManager.fileExists(atPath: fullPath, isDirectory: &isSubdirectory),
                !isSubdirectory.boolValue
            {
                relativePaths.append(relativePath)
            }
        }
        var templates: [String: MustacheTemplate] = [:]
        var displayPaths: [String: String] = [:]
        // Sorted so that, with several broken files, the same one is reported every time.
        for relativePath in relativePaths.sorted() {
            let displayPath = root == "/" ? "/\(relativePath)" : "\(root)/\(relativePath)"
            let name = String(relativePath.dropLast(".mustache".count))
            let source: String
            do {
                let data = try Data(contentsOf: directory.appendingPathComponent(relativePath))
                guard let text = String(validating: data, as: UTF8.self) else {
                    throw MustacheError(
                        kind: .fileSystem, message: "file is not valid UTF-8", path: displayPath)
                }
                source = text
            } catch let error as MustacheError {
                throw error
            } catch {
                throw MustacheError(
                    kind: .fileSystem, message: "cannot read file: \(error.localizedDescription)",
                    path: displayPath)
            }
            do {
                templates[name] = try MustacheTemplate(string: source, name: name)
            } catch {
                throw error.with(path: displayPath)
            }
            displayPaths[name] = displayPath
        }
        try self.init(checking: templates, displayPaths: displayPaths, policy: missingTemplates)
    }

    /// Parses templates given as source text, keyed by name.
    ///
    /// - Throws: ``MustacheError`` for syntax errors and (unless
    ///   `missingTemplates` is ``MissingTemplatePolicy/renderEmpty``) for
    ///   references to names that are not keys of `templates`.
    public init(templates: [String: String], missingTemplates: MissingTemplatePolicy = .failAtLoad)
        throws(MustacheError)
    {
        var parsed: [String: MustacheTemplate] = [:]
        for (name, source) in templates.sorted(by: { $0.key < $1.key }) {
            parsed[name] = try MustacheTemplate(string: source, name: name)
        }
        try self.init(checking: parsed, displayPaths: [:], policy: missingTemplates)
    }

    /// Combines already parsed templates, keyed by the names partials use.
    public init(templates: [String: MustacheTemplate], missingTemplates: MissingTemplatePolicy = .failAtLoad)
        throws(MustacheError)
    {
        try self.init(checking: templates, displayPaths: [:], policy: missingTemplates)
    }

    private init(
        checking templates: [String: MustacheTemplate], displayPaths: [String: String],
        policy: MissingTemplatePolicy
    ) throws(MustacheError) {
        if policy == .failAtLoad {
            for (name, template) in templates.sorted(by: { $0.key < $1.key }) {
                for dependency in template.dependencies where templates[dependency.name] == nil {
                    let role = dependency.isParent ? "parent" : "partial"
                    throw MustacheError(
                        kind: .missingTemplate(dependency.name),
                        message: "missing \(role) '\(dependency.name)'", templateName: name,
                        path: displayPaths[name], line: dependency.line, column: dependency.column)
                }
            }
        }
        self.templates = templates
    }

    /// All template names, sorted.
    public var templateNames: [String] {
        templates.keys.sorted()
    }

    /// The template with the given name, if the library has one.
    public func template(named name: String) -> MustacheTemplate? {
        templates[name]
    }

    /// Renders the named template, resolving partials and parents in this library.
    ///
    /// - Throws: ``MustacheError`` of kind ``MustacheError/Kind/unknownTemplate(_:)``
    ///   if there is no template called `name`.
    public func render(_ context: MustacheValue, template name: String) throws(MustacheError) -> String {
        try template(for: name).render(context, partials: templates)
    }

    /// Renders the named template, appending the output to `buffer`.
    public func render(_ context: MustacheValue, template name: String, into buffer: inout String)
        throws(MustacheError)
    {
        try template(for: name).render(context, partials: templates, into: &buffer)
    }

    /// Renders the named template, appending UTF-8 bytes to `buffer`.
    ///
    /// The fastest form, meant for servers and benchmarks: render every page
    /// into one reused buffer (clear it with `removeAll(keepingCapacity: true)`)
    /// and write the bytes to the socket without converting to `String`.
    public func render(_ context: MustacheValue, template name: String, into buffer: inout [UInt8])
        throws(MustacheError)
    {
        try template(for: name).render(context, partials: templates, into: &buffer)
    }

    private func template(for name: String) throws(MustacheError) -> MustacheTemplate {
        guard let template = templates[name] else {
            throw MustacheError(kind: .unknownTemplate(name), message: "unknown template '\(name)'")
        }
        return template
    }
}
