import ArgumentParser
import Foundation
import HuddleAPNs
import HuddleCore

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Show how a set of pushes groups and reads.",
        discussion: """
            Plays a scenario file and prints the resulting Notification Center. With --app, the inputs are \
            Simulator-style .apns payload files delivered in argument order (a "Simulator Target Bundle" key \
            in a file names its app when --app is not given).
            """
    )

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Argument(help: "A scenario file, or .apns payload files.")
    var inputs: [String]

    @Option(name: .customLong("app"), help: "Treat the inputs as .apns files for this bundle identifier.")
    var app: String?

    @Option(help: "Preferred languages, most preferred first (comma-separated); overrides the scenario's viewer.")
    var languages: String?

    @Flag(inversion: .prefixedNo, help: "Show the center locked (hidden previews); overrides the scenario's viewer.")
    var locked: Bool?

    @Option(help: "text (a picture of the stacks) or json (the rendered-center model).")
    var format: OutputFormat = .text

    @Flag(inversion: .prefixedNo, help: "Colour the text output (default: only on a terminal).")
    var color: Bool?

    func validate() throws {
        if app == nil, inputs.count != 1, !inputs.allSatisfy({ $0.hasSuffix(".apns") }) {
            throw ValidationError("Give one scenario file, or .apns files (with --app or a \"Simulator Target Bundle\" key).")
        }
    }

    func run() throws {
        let scenario: Scenario
        let urls = inputs.map { URL(fileURLWithPath: $0) }
        let center: Center
        do {
            if app != nil || inputs.allSatisfy({ $0.hasSuffix(".apns") }) {
                scenario = try Scenario.loadSimulatorPushes(urls, app: app)
                center = try scenario.play()
            } else {
                scenario = try Scenario.load(contentsOf: urls[0])
                let played = try scenario.play(relativeTo: urls[0])
                for warning in played.warnings {
                    FileHandle.standardError.write(Data("warning: \(warning)\n".utf8))
                }
                center = played.center
            }
        } catch {
            FileHandle.standardError.write(Data("huddle preview: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var viewer = scenario.viewer
        if let languages {
            viewer.languages = languages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let locked { viewer.locked = locked }
        let rendered = center.render(for: viewer)
        for diagnostic in rendered.diagnostics {
            FileHandle.standardError.write(Data("warning: \(diagnostic)\n".utf8))
        }
        switch format {
        case .json:
            print(rendered.json.jsonText(pretty: true))
        case .text:
            let useColor = color ?? (isatty(STDOUT_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
            print(rendered.text(colors: useColor), terminator: "")
        }
    }
}
