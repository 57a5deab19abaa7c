import Foundation
import Mustache
import Testing

/// One test case from the official Mustache spec files in `Fixtures/spec`.
struct SpecCase: Sendable, CustomTestStringConvertible {
    let file: String
    let name: String
    let template: String
    let data: MustacheValue
    let partials: [String: String]
    let expected: String

    var testDescription: String { "\(file): \(name)" }

    /// The spec files this suite runs; every case in each must pass.
    static let files = [
        "comments", "delimiters", "interpolation", "inverted", "partials", "sections",
        "~dynamic-names", "~inheritance",
    ]

    /// Every case of every file, or an empty list if a file is missing or broken
    /// (which the count test reports).
    static let all: [SpecCase] = (try? loadAll()) ?? []

    static func loadAll() throws -> [SpecCase] {
        guard let resources = Bundle.module.resourceURL else {
            throw CocoaError(.fileNoSuchFile)
        }
        let directory = resources.appendingPathComponent("Fixtures/spec")
        return try files.flatMap { file in
            let data = try Data(contentsOf: directory.appendingPathComponent("\(file).json"))
            // The fixtures are read with the library's own JSON parser; its
            // correctness is covered independently in JSONTests.
            guard case .list(let tests)? = try MustacheValue(json: data)["tests"] else {
                throw CocoaError(.fileReadCorruptFile)
            }
            return try tests.map { try SpecCase(file: file, json: $0) }
        }
    }

    private init(file: String, json: MustacheValue) throws {
        guard case .string(let name)? = json["name"], case .string(let template)? = json["template"],
            case .string(let expected)? = json["expected"], let data = json["data"]
        else {
            throw CocoaError(.fileReadCorruptFile)
        }
        var partials: [String: String] = [:]
        if case .object(let fields)? = json["partials"] {
            for (key, value) in fields {
                guard case .string(let source) = value else { throw CocoaError(.fileReadCorruptFile) }
                partials[key] = source
            }
        }
        self.file = file
        self.name = name
        self.template = template
        self.data = data
        self.partials = partials
        self.expected = expected
    }
}
