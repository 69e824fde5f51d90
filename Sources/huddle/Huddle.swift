import ArgumentParser
import Foundation

@main
struct Huddle: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "huddle",
        abstract: "Grouped notifications, as iOS shows them, for Linux and servers.",
        discussion: CommandFailure.exitStatuses,
        version: "huddle \(Version.description)",
        subcommands: [
            PreviewCommand.self, LintCommand.self, PluralCommand.self, ServeCommand.self, SendCommand.self, TokenCommand.self,
            RequestsCommand.self, FaultsCommand.self, KeysCommand.self, FCMCommand.self, CertsCommand.self, MigrateCommand.self, HealthCommand.self,
        ]
    )

    /// Parses and runs as ArgumentParser does, after adding `huddle serve`'s options that the environment sets
    /// (``EnvironmentOptions``): ArgumentParser has no hook between reading the command line and parsing it.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == ServeCommand._commandName {
            do {
                arguments = [arguments[0]]
                    + (try EnvironmentOptions(of: ServeCommand.self).filling(Array(arguments.dropFirst()), from: ProcessInfo.processInfo.environment))
            } catch {
                // Said as a command failure is, with the usage status: the variable is a command line's part.
                FileHandle.standardError.write(Data("huddle serve: \(error)\n".utf8))
                Self.exit(withError: ExitCode.validationFailure)
            }
        }
        await main(arguments)
    }
}
