import ArgumentParser

@main
struct Huddle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle",
        abstract: "Grouped notifications, as iOS shows them, for Linux and servers.",
        subcommands: [PreviewCommand.self, LintCommand.self, PluralCommand.self, ServeCommand.self, SendCommand.self, RequestsCommand.self, KeysCommand.self, MigrateCommand.self]
    )
}
