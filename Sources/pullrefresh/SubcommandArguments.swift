/// The command line of a subcommand that works on a database file (`pullrefresh backup`,
/// `pullrefresh owner …`): `--database FILE` or `--database=FILE`, `-h`/`--help`, and the other
/// words in order. Any other flag is a ``UsageError``.
struct SubcommandArguments {
    /// The words that are not flags (the command's own words, names, paths), in order.
    var words: [String] = []
    /// `--database`'s value.
    var database: String?
    /// Whether `-h` or `--help` was given.
    var wantsHelp = false

    init(_ arguments: [String]) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-h" || argument == "--help" {
                wantsHelp = true
            } else if argument == "--database", index + 1 < arguments.count {
                database = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--database=") {
                database = String(argument.dropFirst("--database=".count))
            } else if argument.hasPrefix("-") {
                throw UsageError("unexpected argument '\(argument)'")
            } else {
                words.append(argument)
            }
            index += 1
        }
    }
}
