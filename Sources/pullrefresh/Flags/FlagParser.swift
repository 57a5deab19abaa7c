/// Reads the environment variables and the arguments of the flag table into a configuration:
/// `--name VALUE`, `--name=VALUE`, toggles alone. Errors are one line naming the flag.
enum FlagParser {
    static func parse(
        _ arguments: [String], environment: [String: String], flags: [Flag] = FlagTable.rows,
        into config: inout Configuration
    ) throws(UsageError) {
        // The environment first, so a flag given too wins.
        for flag in flags {
            if let variable = flag.environment, let text = environment[variable], !text.isEmpty {
                try flag.apply(&config, FlagValue(name: variable, text: text))
            }
        }
        var byName: [String: Flag] = [:]
        for flag in flags {
            for name in [flag.name] + flag.aliases { byName[name] = flag }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let flag = byName[name] else { throw UsageError("unknown option '\(argument)'") }
            var text = ""
            if flag.placeholder == nil {
                if inline != nil { throw UsageError("\(name) takes no value") }
            } else if let inline {
                text = inline
            } else {
                index += 1
                guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                text = arguments[index]
            }
            try flag.apply(&config, FlagValue(name: name, text: text))
            index += 1
        }
    }
}
