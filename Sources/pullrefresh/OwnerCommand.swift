import Foundation
import Owner
import Storage

#if canImport(Glibc)
    import Glibc
#endif

/// `pullrefresh owner …`: sets the owner's password and manages app tokens in a database file,
/// while a server may be running on it (no lock is taken; the server sees each change at its
/// next request). docs/owner.md describes each command.
///
/// Exit status: 0 done, 1 refused or failed (an unknown token, a database that cannot be
/// used), 2 a usage error or a password that is too short.
enum OwnerCommand {
    static let usage = """
        Usage: pullrefresh owner set-password --database FILE   (the password from standard input)
               pullrefresh owner token create NAME --database FILE
               pullrefresh owner token list --database FILE
               pullrefresh owner token revoke NAME --database FILE
               pullrefresh owner status --database FILE
        """

    /// The longest token name, in characters.
    static let maxNameLength = 100

    static func run(_ arguments: [String]) -> Int32 {
        let invocation: SubcommandArguments
        do {
            invocation = try SubcommandArguments(arguments)
        } catch {
            return fail("owner: \(error.message)\n\(usage)", status: 2)
        }
        if invocation.wantsHelp {
            FileHandle.standardOutput.write(Data((usage + "\n").utf8))
            return 0
        }
        guard let database = invocation.database, !database.isEmpty else {
            return fail("owner needs --database FILE: the owner lives in the database\n\(usage)", status: 2)
        }
        switch invocation.words {
        case ["set-password"]: return setPassword(database: database)
        case ["status"]: return status(database: database)
        case ["token", "list"]: return listTokens(database: database)
        case let words where words.count == 3 && words[0] == "token" && words[1] == "create":
            return createToken(named: words[2], database: database)
        case let words where words.count == 3 && words[0] == "token" && words[1] == "revoke":
            return revokeToken(named: words[2], database: database)
        default:
            let given =
                invocation.words.isEmpty ? "no command" : "'\(invocation.words.joined(separator: " "))'"
            return fail("owner: \(given) is not an owner command\n\(usage)", status: 2)
        }
    }

    // MARK: Commands

    private static func setPassword(database: String) -> Int32 {
        guard let password = readPassword() else {
            return fail("owner set-password: the two passwords differ; nothing was changed", status: 2)
        }
        guard password.count >= OwnerAuthority.minimumPasswordLength else {
            return fail(
                "owner set-password: the password needs at least \(OwnerAuthority.minimumPasswordLength) "
                    + "characters (it had \(password.count)); nothing was changed", status: 2)
        }
        do {
            let authority = OwnerAuthority(records: try OwnerRecords(path: database, creating: true))
            let ended = try authority.setPassword(password)
            say("password of the owner set in \(database); browser sessions signed out: \(ended)")
            return 0
        } catch {
            return fail(error.message, status: 1)
        }
    }

    private static func createToken(named name: String, database: String) -> Int32 {
        guard !name.isEmpty, name.count <= maxNameLength,
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            return fail(
                "owner token create: a token's name has 1 to \(maxNameLength) characters, no control characters",
                status: 2)
        }
        do {
            let token = try OwnerAuthority(records: try OwnerRecords(path: database)).createToken(name: name)
            // The token alone on stdout (so `TOKEN=$(pullrefresh owner token create …)` works),
            // the explanation on stderr.
            FileHandle.standardOutput.write(Data((token + "\n").utf8))
            FileHandle.standardError.write(
                Data(
                    ("pullrefresh: token '\(name)' made; it is shown only this once (the database keeps its hash). "
                        + "Send it as `Authorization: Bearer TOKEN`.\n").utf8))
            return 0
        } catch {
            return fail(error.message, status: 1)
        }
    }

    private static func listTokens(database: String) -> Int32 {
        do {
            let tokens = try OwnerRecords(path: database).tokens()
            guard !tokens.isEmpty else {
                say("no tokens in \(database)")
                return 0
            }
            let width = max(4, tokens.map(\.name.count).max() ?? 0)
            var lines = [
                "NAME".padding(toLength: width, withPad: " ", startingAt: 0)
                    + "  CREATED               LAST USED"
            ]
            for token in tokens {
                lines.append(
                    token.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + stamp(token.createdAt) + "  " + (token.lastUsedAt.map(stamp) ?? "never"))
            }
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            return 0
        } catch {
            return fail(error.message, status: 1)
        }
    }

    private static func revokeToken(named name: String, database: String) -> Int32 {
        do {
            guard try OwnerRecords(path: database).revokeToken(name: name) else {
                return fail("owner token revoke: no token named '\(name)' in \(database)", status: 1)
            }
            say("token '\(name)' revoked: requests bearing it are refused from now on")
            return 0
        } catch {
            return fail(error.message, status: 1)
        }
    }

    /// Whether the file has an owner, and how to set one when not (`make run` prints it).
    private static func status(database: String) -> Int32 {
        let owner: OwnerAccount?
        do {
            owner =
                FileManager.default.fileExists(atPath: database)
                ? try OwnerRecords(path: database).owner() : nil
        } catch {
            return fail(error.message, status: 1)
        }
        if let owner {
            say("\(database) has an owner (password set \(stamp(owner.updatedAt))): sign in at /signin")
        } else {
            say(
                "\(database) has no owner: anyone who can reach the port reads the river, and nobody can change "
                    + "the feeds from the page or the API. Set one with "
                    + "`pullrefresh owner set-password --database \(database)` (docs/owner.md)")
        }
        return 0
    }

    // MARK: Input and output

    /// The password: on a terminal asked twice with echo off (nil when the two differ); from a
    /// pipe or file, the first line.
    private static func readPassword() -> String? {
        guard isatty(STDIN_FILENO) == 1 else { return readLine(strippingNewline: true) ?? "" }
        let first = prompt(
            "New password for the owner (at least \(OwnerAuthority.minimumPasswordLength) characters): ")
        let second = prompt("The same again: ")
        return first == second ? first : nil
    }

    /// Asks on stderr and reads one line from the terminal with its echo off.
    private static func prompt(_ question: String) -> String {
        var saved = termios()
        let haveTerminal = tcgetattr(STDIN_FILENO, &saved) == 0
        if haveTerminal {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        // Asked once the echo is off, so nothing typed after the question shows.
        FileHandle.standardError.write(Data(question.utf8))
        let line = readLine(strippingNewline: true) ?? ""
        if haveTerminal { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        FileHandle.standardError.write(Data("\n".utf8))
        return line
    }

    /// A date as `2026-12-03 18:04:31Z`.
    private static func stamp(_ date: Date) -> String {
        date.ISO8601Format(.iso8601.dateSeparator(.dash).timeSeparator(.colon).dateTimeSeparator(.space))
    }

    private static func say(_ message: String) {
        FileHandle.standardOutput.write(Data("pullrefresh: \(message)\n".utf8))
    }

    private static func fail(_ message: String, status: Int32) -> Int32 {
        FileHandle.standardError.write(Data("pullrefresh: \(message)\n".utf8))
        return status
    }
}
