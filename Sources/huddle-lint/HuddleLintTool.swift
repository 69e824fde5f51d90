import ArgumentParser
import HuddleLintCommand

/// `huddle-lint`: `huddle lint` alone, without the server, so that a SwiftPM plugin or a CI job that builds it
/// compiles the linter's modules and swift-argument-parser, not Hummingbird, NIO and the database drivers.
@main
struct HuddleLintTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle-lint",
        abstract: LintOptions.abstract,
        discussion: LintOptions.discussion + " It is `huddle lint` without the server, for plugins and CI."
    )

    @OptionGroup var options: LintOptions

    func run() throws { try options.run(as: "huddle-lint") }
}
