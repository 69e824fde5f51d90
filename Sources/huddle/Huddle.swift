import ArgumentParser

@main
struct Huddle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle",
        abstract: "Grouped notifications, as iOS shows them, for Linux and servers.",
        discussion: CommandFailure.exitStatuses,
        version: "huddle \(Version.description)",
        subcommands: [
            PreviewCommand.self, LintCommand.self, PluralCommand.self, ServeCommand.self, SendCommand.self, TokenCommand.self,
            RequestsCommand.self, KeysCommand.self, MigrateCommand.self,
        ]
    )
}
