import Foundation
import Testing

@testable import pullrefresh

/// The flag table as a user meets it: the built binary's `--help` and its errors.
@Suite("Flags of the pullrefresh command")
struct FlagCommandTests {
    static let refusing = FlagTable.rows.filter { $0.kind.refused != nil }

    @Test func helpListsEveryRowGrouped() throws {
        let result = try Executable.run(["--help"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n")
        #expect(
            lines.allSatisfy { $0.count <= FlagHelp.width }, "\(lines.filter { $0.count > FlagHelp.width })")
        // The descriptions as one line each: wrapping joined back.
        let unwrapped = result.stdout.replacingOccurrences(
            of: "\n" + String(repeating: " ", count: FlagHelp.column), with: " ")
        for flag in FlagTable.rows {
            let line = lines.first { $0.hasPrefix("  \(flag.usage)") }
            #expect(line != nil, "--help lacks \(flag.usage)")
            #expect(unwrapped.contains(flag.help), "--help lacks the help of \(flag.name)")
        }
        for section in FlagSection.allCases {
            #expect(result.stdout.contains("\n\(section.title):\n"), "\(section.title)")
        }
        #expect(result.stdout.contains("render NAME"))
    }

    @Test(arguments: refusing.map(\.name))
    func aRefusedValueExits2NamingTheFlag(name: String) throws {
        let flag = try #require(FlagTable.rows.first { $0.name == name })
        let refused = try #require(flag.kind.refused)
        let result = try Executable.run([name, refused])
        #expect(result.status == 2, "\(name) \(refused): \(result.stderr)")
        #expect(result.stderr.hasPrefix("pullrefresh: \(name)"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
