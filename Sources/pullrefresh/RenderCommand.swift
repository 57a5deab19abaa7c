import Foundation
import Mustache

/// `pullrefresh render NAME [--templates DIR] [--data FILE|-]`: renders one
/// template from a template directory with JSON data, for checking templates
/// without starting the server.
enum RenderCommand {
    static let usage = "usage: pullrefresh render NAME [--templates DIR] [--data FILE|-]"

    private struct Options {
        var name: String?
        var templates = "Templates"
        var data: String?
    }

    private enum Outcome {
        case run(Options)
        case help
        case usageError(String)
    }

    /// Runs the command; `arguments` start after the word `render`.
    ///
    /// Writes exactly the rendered text to standard output. Returns 0 on
    /// success, 1 for template, data or file errors (one line on standard
    /// error) and 2 for usage errors.
    static func run(_ arguments: [String]) -> Int32 {
        let options: Options
        switch parse(arguments) {
        case .help:
            write(usage + "\n", to: .standardOutput)
            return 0
        case .usageError(let message):
            write("pullrefresh render: \(message)\n\(usage)\n", to: .standardError)
            return 2
        case .run(let parsed):
            options = parsed
        }
        guard let name = options.name else {
            write("pullrefresh render: missing template NAME\n\(usage)\n", to: .standardError)
            return 2
        }
        do {
            let library = try MustacheLibrary(directory: URL(fileURLWithPath: options.templates))
            let context = try loadContext(options.data)
            var output: [UInt8] = []
            try library.render(context, template: name, into: &output)
            try FileHandle.standardOutput.write(contentsOf: output)
            return 0
        } catch {
            report(error)
            return 1
        }
    }

    private static func parse(_ arguments: [String]) -> Outcome {
        var options = Options()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--help", "-h":
                return .help
            case "--templates", "--data":
                guard index < arguments.count else { return .usageError("\(argument) needs a value") }
                let value = arguments[index]
                index += 1
                if argument == "--templates" {
                    options.templates = value
                } else {
                    options.data = value
                }
            case _ where argument.hasPrefix("--templates="):
                options.templates = String(argument.dropFirst("--templates=".count))
            case _ where argument.hasPrefix("--data="):
                options.data = String(argument.dropFirst("--data=".count))
            case _ where argument.hasPrefix("-") && argument != "-":
                return .usageError("unknown option '\(argument)'")
            default:
                guard options.name == nil else { return .usageError("unexpected argument '\(argument)'") }
                options.name = argument
            }
        }
        return .run(options)
    }

    /// Reads the JSON context; no `--data` means an empty object.
    private static func loadContext(_ source: String?) throws -> MustacheValue {
        guard let source else { return .object([:]) }
        let data: Data
        let displayName: String
        if source == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
            displayName = "<stdin>"
        } else {
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: source))
            } catch {
                throw MustacheError(kind: .fileSystem, message: "cannot read data file", path: source)
            }
            displayName = source
        }
        do {
            return try MustacheValue(json: data)
        } catch {
            throw MustacheError(
                kind: error.kind, message: error.message, path: displayName, line: error.line,
                column: error.column)
        }
    }

    private static func report(_ error: any Error) {
        let text = (error as? MustacheError)?.description ?? "\(error)"
        // One line per error keeps the output greppable even if a message embeds a newline.
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        write("pullrefresh render: \(line)\n", to: .standardError)
    }

    private static func write(_ text: String, to handle: FileHandle) {
        // Nothing useful can be done if the terminal or pipe is gone.
        try? handle.write(contentsOf: Data(text.utf8))
    }
}
