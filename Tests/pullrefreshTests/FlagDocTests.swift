import Foundation
import Testing

@testable import pullrefresh

/// docs/configuration.md's flag reference is what the binary prints (`--help-markdown`), checked
/// by the same script `make flags-doc-check` runs; and the check does fail on a stale copy.
@Suite("The flag reference in docs/configuration.md")
struct FlagDocTests {
    static let script = Executable.repositoryRoot.appendingPathComponent("scripts/flags-doc").path
    static let doc = Executable.repositoryRoot.appendingPathComponent("docs/configuration.md")

    /// A copy of the committed doc changed by `edit`, in a folder of its own.
    static func staleCopy(_ edit: (String) -> String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flags-doc-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("configuration.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        let edited = edit(text)
        #expect(edited != text, "the edit changed nothing")
        try edited.write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }

    @Test func theCommittedDocIsWhatTheBinaryPrints() throws {
        let check = try Executable.run(["--check", Executable.binary, Self.doc.path], path: Self.script)
        #expect(check.status == 0, "\(check.stderr)")
        let printed = try Executable.run(["--help-markdown"])
        #expect(printed.status == 0)
        #expect(printed.stdout == FlagHelp.markdown())
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        #expect(text.contains("<!-- flags:begin -->\n" + printed.stdout + "<!-- flags:end -->"))
    }

    @Test(arguments: [
        "a changed default", "a row removed", "a row added", "markers removed",
    ])
    func aStaleDocFailsTheCheckAndFlagsDocMendsIt(change: String) throws {
        let copy = try Self.staleCopy { text in
            switch change {
            case "a changed default":
                return text.replacingOccurrences(
                    of: "| `8080` (or `$PORT`) |", with: "| `8081` (or `$PORT`) |")
            case "a row removed":
                return text.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("| `--heartbeat D`") }.joined(separator: "\n")
            case "a row added":
                return text.replacingOccurrences(
                    of: "<!-- flags:end -->",
                    with: "| `--gone N` | — | — | A flag that no longer exists |\n<!-- flags:end -->")
            default:
                return text.replacingOccurrences(of: "<!-- flags:end -->\n", with: "")
            }
        }
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let stale = try Executable.run(["--check", Executable.binary, copy.path], path: Self.script)
        #expect(stale.status == 1, "\(change): \(stale.stderr)")
        guard change != "markers removed" else {
            #expect(stale.stderr.contains("needs exactly one"))
            return
        }
        #expect(stale.stderr.contains("stale; run 'make flags-doc'"), "\(stale.stderr)")
        let mend = try Executable.run([Executable.binary, copy.path], path: Self.script)
        #expect(mend.status == 0, "\(mend.stderr)")
        #expect(
            try String(contentsOf: copy, encoding: .utf8) == String(contentsOf: Self.doc, encoding: .utf8))
    }
}
