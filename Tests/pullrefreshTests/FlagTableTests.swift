import Foundation
import HTTPServer
import Testing

@testable import pullrefresh

/// The flag table drives the parser: every row parses its values in both spellings, changes the
/// configuration, and refuses a bad value with an error naming the flag.
@Suite("The flag table")
struct FlagTableTests {
    static let valued = FlagTable.rows.filter { $0.placeholder != nil }

    static func example(_ flag: Flag) -> String {
        flag.kind.example(unlike: flag.defaultValue)
    }

    /// What a configuration holds, every stored property included.
    static func contents(_ config: Configuration) -> String {
        String(reflecting: config)
    }

    @Test func namesAreUniqueAndHelpIsOneLine() {
        let names = FlagTable.rows.flatMap { [$0.name] + $0.aliases }
        #expect(Set(names).count == names.count, "\(names)")
        #expect(names.count > 40)
        for flag in FlagTable.rows {
            #expect(flag.name.hasPrefix("--") && !flag.name.contains("="), "\(flag.name)")
            #expect(!flag.help.isEmpty && !flag.help.contains("\n"), "\(flag.name)")
        }
    }

    @Test(arguments: FlagTable.rows.map(\.name))
    func everyRowChangesTheConfiguration(name: String) throws {
        let flag = try #require(FlagTable.rows.first { $0.name == name })
        var config = Configuration()
        try flag.apply(&config, FlagValue(name: flag.name, text: Self.example(flag)))
        #expect(Self.contents(config) != Self.contents(Configuration()), "\(name) \(Self.example(flag))")
    }

    @Test(arguments: valued.map(\.name))
    func bothSpellingsParseAlike(name: String) throws {
        let flag = try #require(FlagTable.rows.first { $0.name == name })
        let value = Self.example(flag)
        var separate = Configuration()
        try FlagParser.parse([name, value], environment: [:], into: &separate)
        var inline = Configuration()
        try FlagParser.parse(["\(name)=\(value)"], environment: [:], into: &inline)
        var applied = Configuration()
        try flag.apply(&applied, FlagValue(name: name, text: value))
        #expect(Self.contents(separate) == Self.contents(applied))
        #expect(Self.contents(inline) == Self.contents(applied))
    }

    @Test(arguments: valued.map(\.name))
    func aMissingValueNamesTheFlag(name: String) {
        var config = Configuration()
        #expect(throws: UsageError.self) { try FlagParser.parse([name], environment: [:], into: &config) }
        do {
            try FlagParser.parse([name], environment: [:], into: &config)
        } catch {
            #expect(error.message == "\(name) needs a value")
        }
    }

    @Test func togglesTakeNoValueAndAliasesWork() throws {
        var config = Configuration()
        do {
            try FlagParser.parse(["--quiet=yes"], environment: [:], into: &config)
            Issue.record("--quiet=yes was taken")
        } catch {
            #expect(error.message == "--quiet takes no value")
        }
        try FlagParser.parse(["-h"], environment: [:], into: &config)
        #expect(config.showHelp)
    }

    @Test func environmentIsReadAndAFlagWins() throws {
        var config = Configuration()
        try FlagParser.parse([], environment: ["PORT": "9001"], into: &config)
        #expect(config.server.port == 9001)
        try FlagParser.parse(["--port", "9002"], environment: ["PORT": "9001"], into: &config)
        #expect(config.server.port == 9002)
        do {
            try FlagParser.parse([], environment: ["PORT": "http"], into: &config)
            Issue.record("PORT=http was taken")
        } catch {
            #expect(error.message == "PORT must be an integer from 0 to 65535, got 'http'")
        }
    }

    @Test func defaultsShownAreTheConfigurationsDefaults() throws {
        let rows = Dictionary(uniqueKeysWithValues: FlagTable.rows.map { ($0.name, $0) })
        let base = Configuration()
        #expect(rows["--port"]?.defaultValue == String(base.server.port))
        #expect(rows["--reload-delay"]?.defaultValue == "1s")
        #expect(rows["--heartbeat"]?.defaultValue == "15s")
        #expect(rows["--source-timeout"]?.defaultValue == "15s")
        // A default the parser reads back gives the default configuration.
        for flag in Self.valued {
            guard let text = flag.defaultValue, !text.contains(" ") else { continue }
            var config = Configuration()
            try flag.apply(&config, FlagValue(name: flag.name, text: text))
            config.reloadDelayGiven = false  // given or not is what --reload-delay also records
            #expect(Self.contents(config) == Self.contents(base), "\(flag.name) \(text)")
        }
    }
}
