import Foundation

/// `--help` and the flag reference of docs/configuration.md, both made from the flag table.
enum FlagHelp {
    /// Where the description column of `--help` starts; longer flags put it on the next line.
    static let column = 27
    /// The longest line of `--help`.
    static let width = 100

    static let header = """
        Usage: pullrefresh [options]
               pullrefresh render NAME [--templates DIR] [--data FILE|-]
               pullrefresh backup --database FILE OUT
               pullrefresh owner COMMAND --database FILE   (pullrefresh owner --help)

        Serves the PullRefresh page and JSON API. Durations: 1, 0.5, 500ms, 2s, 15m, 2h.
        """

    /// The text of `--help`: the flags grouped by section, descriptions aligned.
    static func text(_ flags: [Flag] = FlagTable.rows) -> String {
        var lines = [header]
        for section in FlagSection.allCases {
            let rows = flags.filter { $0.section == section }
            guard !rows.isEmpty else { continue }
            lines.append("\n\(section.title):")
            for flag in rows {
                let left = "  " + flag.usage
                var words = wrapped(flag.help + suffix(flag))
                if left.count + 2 <= column {
                    lines.append(
                        left.padding(toLength: column, withPad: " ", startingAt: 0) + words.removeFirst())
                } else {
                    lines.append(left)
                }
                lines += words.map { String(repeating: " ", count: column) + $0 }
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The flag reference in Markdown: one table per section.
    static func markdown(_ flags: [Flag] = FlagTable.rows) -> String {
        var lines = [
            "<!-- Made by `pullrefresh --help-markdown` from Sources/pullrefresh/Flags/FlagTable.swift;",
            "     `make flags-doc` rewrites it, the test FlagDocTests fails when it is stale. -->",
        ]
        for section in FlagSection.allCases {
            let rows = flags.filter { $0.section == section }
            guard !rows.isEmpty else { continue }
            lines += [
                "", "### \(section.title)", "", "| Flag | Accepts | Default | Meaning |",
                "| --- | --- | --- | --- |",
            ]
            for flag in rows {
                let usage = (flag.aliases + [flag.name]).map { name in
                    "`\(name)\(flag.placeholder.map { " \($0)" } ?? "")`"
                }
                // A value in code, a default in words (`number of cores`) as text.
                var defaultText = flag.defaultValue.map { $0.contains(" ") ? $0 : "`\($0)`" } ?? "—"
                if let variable = flag.environment { defaultText += " (or `$\(variable)`)" }
                let meaning = flag.help + (flag.details.map { ". \($0)" } ?? "")
                let cells = [usage.joined(separator: ", "), flag.kind.accepts, defaultText, meaning]
                lines.append("| " + cells.map(escaped).joined(separator: " | ") + " |")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The description cut into lines that end by column `width`.
    private static func wrapped(_ text: String) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, column + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return lines + [line]
    }

    /// ` (default 8080, or $PORT)` for `--help`.
    private static func suffix(_ flag: Flag) -> String {
        switch (flag.defaultValue, flag.environment) {
        case (let value?, nil): " (default \(value))"
        case (let value?, let variable?): " (default \(value), or $\(variable))"
        case (nil, let variable?): " (or $\(variable))"
        case (nil, nil): ""
        }
    }

    /// A pipe inside a cell would end it.
    private static func escaped(_ cell: String) -> String {
        cell.replacingOccurrences(of: "|", with: "\\|")
    }
}
