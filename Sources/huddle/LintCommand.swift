import ArgumentParser
import HuddleLintCommand

/// `huddle lint`: the linter as a subcommand of the full tool. Plugins and CI use the same options through the
/// smaller `huddle-lint` executable.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "lint", abstract: LintOptions.abstract, discussion: LintOptions.discussion)

    @OptionGroup var options: LintOptions

    func run() throws { try options.run(as: "huddle lint") }
}
