import ArgumentParser
import Foundation

/// A command's options taken from the environment, for containers and service managers, where variables are
/// easier to set than arguments: each option the command line leaves out is read from `HUDDLE_<OPTION>`
/// (`--max-streams` from `HUDDLE_MAX_STREAMS`); what is typed always wins.
///
/// ArgumentParser reads only the command line, so the variables become arguments before it parses: an option
/// from the environment is then checked, converted and refused exactly as a typed one, by the same code. The
/// list of options is the command's own declaration (as ArgumentParser describes it for tools), so an option
/// added to the command is settable from the environment with no change here.
struct EnvironmentOptions {
    /// One option of the command, as the environment sets it.
    struct Option: Equatable {
        /// The long name, without dashes (`max-streams`).
        var name: String
        /// Every spelling on the command line (`--max-streams`, and a short `-m` if it had one).
        var spellings: [String]
        var isFlag: Bool
        var isRepeating: Bool

        /// The variable that sets it.
        var variable: String { EnvironmentOptions.variable(forOption: name) }
    }

    /// The options that can be set from the environment: every visible option and flag (hidden ones are for
    /// benchmarks and tests, and `--help` is not a setting).
    let options: [Option]

    init(of command: any ParsableCommand.Type) {
        options = Self.declaredOptions(of: command)
    }

    /// The variable for an option's long name: `HUDDLE_` and the name in capitals, `-` as `_`.
    ///
    /// `--database` keeps `HUDDLE_DATABASE_URL`, the name `huddle migrate` and `huddle keys` read too and the
    /// one PostgreSQL users expect; two names for one setting would leave a reader guessing which wins.
    static func variable(forOption name: String) -> String {
        name == "database" ? "HUDDLE_DATABASE_URL" : "HUDDLE_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// The command's arguments with, after them, an argument for each option that they leave out and the
    /// environment sets.
    ///
    /// A flag's variable is `true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`); a repeatable option's is a
    /// comma-separated list. Values are passed as `--name=value`, so a value that starts with `-` is still a
    /// value.
    /// - Throws: `ValidationError` for a variable that is set but empty (an empty token would be a password
    ///   everyone knows; an empty anything else is a mistake in a compose file more often than a wish), or a
    ///   flag's variable that is neither true nor false.
    func filling(_ arguments: [String], from environment: [String: String]) throws -> [String] {
        var filled = arguments
        for option in options where !isGiven(option, in: arguments) {
            guard let value = environment[option.variable] else { continue }
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty else {
                throw ValidationError("$\(option.variable) is empty: give it a value (--\(option.name)), or unset it")
            }
            if option.isFlag {
                switch trimmed.lowercased() {
                case "true", "1", "yes", "on": filled.append("--\(option.name)")
                case "false", "0", "no", "off": break
                default: throw ValidationError("$\(option.variable) is \"\(value)\": expected true or false (--\(option.name))")
                }
            } else if option.isRepeating {
                let values = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                filled += values.map { "--\(option.name)=\($0)" }
            } else {
                filled.append("--\(option.name)=\(value)")
            }
        }
        return filled
    }

    /// Whether the command line gives the option itself, as `--name value`, `--name=value` or a flag (before a
    /// `--`, after which nothing is an option).
    private func isGiven(_ option: Option, in arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if option.spellings.contains(where: { argument == $0 || argument.hasPrefix($0 + "=") }) { return true }
        }
        return false
    }

    /// The options a command declares, from ArgumentParser's description of it for tools (the JSON behind
    /// `--experimental-dump-help`). `_dumpHelp()` is public but underscored, so it may change: the end-to-end
    /// tests set every option that `huddle serve --help` lists through its variable, and would notice.
    private static func declaredOptions(of command: any ParsableCommand.Type) -> [Option] {
        guard let description = try? JSONDecoder().decode(ToolDescription.self, from: Data(command._dumpHelp().utf8)) else {
            // The description is made by the parser from the declaration itself; failing to read it is a
            // change in ArgumentParser that every test of this type would show at once.
            preconditionFailure("ArgumentParser's description of \(command) could not be read")
        }
        return (description.command.arguments ?? []).compactMap { argument in
            guard argument.kind != "positional", argument.shouldDisplay,
                let long = argument.names?.first(where: { $0.kind == "long" })?.name, long != "help"
            else { return nil }
            let spellings = (argument.names ?? []).map { $0.kind == "long" ? "--\($0.name)" : "-\($0.name)" }
            return Option(name: long, spellings: spellings, isFlag: argument.kind == "flag", isRepeating: argument.isRepeating)
        }
    }

    /// The part of ArgumentParser's `ToolInfoV0` read here (its own type is in a module that is not a product).
    private struct ToolDescription: Decodable {
        struct Command: Decodable {
            var arguments: [Argument]?
        }

        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }

            var kind: String
            var shouldDisplay: Bool
            var isRepeating: Bool
            var names: [Name]?
        }

        var command: Command
    }
}
