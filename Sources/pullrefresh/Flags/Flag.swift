/// One row of the flag table (``FlagTable``): the parser, `--help` and the flag reference in
/// docs/configuration.md are all made from these rows.
struct Flag: Sendable {
    /// Sets the configuration from the flag's value, or throws a one-line error naming the flag.
    typealias Apply = @Sendable (inout Configuration, FlagValue) throws(UsageError) -> Void

    /// `--port`.
    let name: String
    /// Other spellings (`-h` for `--help`).
    var aliases: [String] = []
    /// The value's name in `--help` (`N`, `FILE`, `poll|epoll`); nil for a toggle.
    let placeholder: String?
    let kind: FlagKind
    /// The default as a user would write it; nil when there is none.
    var defaultValue: String?
    /// The environment variable read before the flags, if any (the flag wins).
    var environment: String?
    let section: FlagSection
    /// One line for `--help` and the doc.
    let help: String
    /// More for the doc only (Markdown), appended to `help`.
    var details: String?
    let apply: Apply

    /// `--name PLACEHOLDER` (or `-h, --help`), as `--help` and the doc show it.
    var usage: String {
        (aliases + [name]).joined(separator: ", ") + (placeholder.map { " \($0)" } ?? "")
    }

    /// A flag without a value.
    static func toggle(
        _ name: String, aliases: [String] = [], _ section: FlagSection, _ help: String,
        set: @escaping @Sendable (inout Configuration) -> Void
    ) -> Flag {
        Flag(
            name: name, aliases: aliases, placeholder: nil, kind: .toggle, defaultValue: nil,
            section: section,
            help: help
        ) { config, _ throws(UsageError) in set(&config) }
    }

    static func integer(
        _ name: String, value placeholder: String = "N", _ range: ClosedRange<Int>,
        default defaultValue: Int?,
        environment: String? = nil, _ section: FlagSection, _ help: String,
        set: @escaping @Sendable (inout Configuration, Int) -> Void
    ) -> Flag {
        Flag(
            name: name, placeholder: placeholder, kind: .integer(range),
            defaultValue: defaultValue.map(String.init),
            environment: environment, section: section, help: help
        ) { config, value throws(UsageError) in set(&config, try value.integer(range)) }
    }

    static func duration(
        _ name: String, maxSeconds: Double = 600, minimum: Duration? = nil, default defaultValue: String?,
        _ section: FlagSection, _ help: String,
        set: @escaping @Sendable (inout Configuration, Duration) -> Void
    ) -> Flag {
        Flag(
            name: name, placeholder: "D", kind: .duration(maxSeconds: maxSeconds, minimum: minimum),
            defaultValue: defaultValue, section: section, help: help
        ) { config, value throws(UsageError) in
            set(&config, try value.duration(maxSeconds: maxSeconds, minimum: minimum))
        }
    }

    /// One of a few words; `placeholder` lists them (`poll|epoll`).
    static func choice(
        _ name: String, _ words: [String], default defaultValue: String, _ section: FlagSection,
        _ help: String, set: @escaping @Sendable (inout Configuration, String) -> Void
    ) -> Flag {
        Flag(
            name: name, placeholder: words.joined(separator: "|"), kind: .choice(words),
            defaultValue: defaultValue, section: section, help: help
        ) { config, value throws(UsageError) in set(&config, try value.choice(words)) }
    }

    /// Text the flag checks itself (`set` throws the flag's own message).
    static func text(
        _ name: String, _ placeholder: String, accepts: String, example: String, refused: String?,
        default defaultValue: String? = nil, environment: String? = nil, _ section: FlagSection,
        _ help: String, set: @escaping Apply
    ) -> Flag {
        Flag(
            name: name, placeholder: placeholder,
            kind: .text(accepts: accepts, example: example, refused: refused),
            defaultValue: defaultValue, environment: environment, section: section, help: help, apply: set)
    }

    /// This row with its default in words (`number of cores`).
    func defaulting(to words: String) -> Flag {
        var flag = self
        flag.defaultValue = words
        return flag
    }

    /// This row with more text for the doc.
    func documented(_ details: String) -> Flag {
        var flag = self
        flag.details = details
        return flag
    }
}
