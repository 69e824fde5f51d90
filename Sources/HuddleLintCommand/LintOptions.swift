public import ArgumentParser
import Foundation
import HuddleAPNs
import HuddleCore
import HuddleLint

/// What `huddle lint` and the stand-alone `huddle-lint` take and do, in one place: the two commands differ
/// only in their names. `huddle-lint` exists so that SwiftPM plugins and CI can build the linter without the
/// server (Hummingbird, NIO, the databases), which `huddle` links in.
public struct LintOptions: ParsableArguments {
    public static let abstract = "Check pushes and catalogs for what makes notifications group and read badly."
    public static let discussion = """
        Reads payloads (.json, Simulator .apns files), scenarios, catalogs (.strings, .stringsdict, \
        .xcstrings), .lproj folders and whole folders (searched recursively). What an app declares \
        (categories with their summary formats and placeholders, development language, localizations \
        folder) comes from --app-file or from a scenario among the inputs. Exit status: 0 when no finding \
        reaches --fail-on, 1 when one does, 2 when an input cannot be read. \
        --list-rules prints every rule id with its severity.
        """

    public init() {}

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case clang, json, sarif, github, junit
    }

    enum FailLevel: String, ExpressibleByArgument, CaseIterable {
        case error, warning, note, never
    }

    @Argument(help: "Payloads, scenarios, catalogs and folders holding them.")
    var paths: [String] = []

    @Option(name: .customLong("app-file"), help: "A scenario-shaped file describing the apps (repeatable).")
    var appFiles: [String] = []

    @Option(name: .customLong("app"), help: "The app that payloads and catalogs naming none belong to.")
    var app: String?

    @Option(name: .customLong("development-language"), help: "The development language of catalogs whose app declares none (default: a String Catalog's source language, else en).")
    var developmentLanguage: String?

    @Option(
        name: .customLong("push-type"),
        help: "The apns-push-type to lint every payload file as (its rules and size limit: alert 4096 bytes, voip 5120). Without it, each file's type is read from its keys: \(Linter.pushTypeRules).")
    var pushType: String?

    @Option(help: "clang (file:line:column: severity: message [rule]), json, sarif (SARIF 2.1.0), github (workflow annotations) or junit (JUnit XML test results, failed at --fail-on).")
    var format: OutputFormat = .clang

    @Option(
        name: .customLong("stamp-file"),
        help: "Write this file (empty) after a run that does not fail: the output a build system waits for before it runs the check again, as the SwiftPM build plugin's does."
    )
    var stampFile: String?

    @Option(name: .customLong("fail-on"), help: "The least severity that makes the exit status 1: error, warning, note or never.")
    var failOn: FailLevel = .error

    @Option(name: .customLong("disable"), help: "A rule id whose findings are left out (repeatable), e.g. thread-id-mix.")
    var disabledRules: [String] = []

    @Flag(name: .customLong("list-rules"), help: "Print every rule id with its severity and what it finds, then exit.")
    var listRules = false

    public func validate() throws {
        if !listRules, paths.isEmpty { throw ValidationError("Give at least one payload, scenario, catalog or folder to lint.") }
        if let pushType, PushType(rawValue: pushType) == nil {
            throw ValidationError("--push-type must be one of \(PushType.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        for id in disabledRules where LintRule(rawValue: id) == nil {
            throw ValidationError("--disable \(id): no such rule (--list-rules prints them).")
        }
    }

    /// The least severity that fails the run; `nil` for `--fail-on never`.
    private var failingSeverity: LintSeverity? {
        failOn == .never ? nil : LintSeverity(rawValue: failOn.rawValue)
    }

    /// Lints, prints the report on standard output and its summary on standard error.
    /// - Parameter commandName: how the summary line names the command (`huddle lint`, `huddle-lint`).
    /// - Throws: `ExitCode` 1 when a finding reaches `--fail-on`, 2 when an input cannot be read or the
    ///   `--stamp-file` cannot be written.
    public func run(as commandName: String) throws {
        if listRules {
            for rule in LintRule.allCases {
                print("\(rule.id) (\(rule.defaultSeverity.rawValue)): \(rule.summary)")
            }
            return
        }
        var configuration = Linter.Configuration()
        configuration.appFiles = appFiles
        configuration.app = app
        configuration.developmentLanguage = developmentLanguage
        configuration.pushType = pushType.flatMap(PushType.init(rawValue:))
        configuration.disabledRules = Set(disabledRules.compactMap(LintRule.init(rawValue:)))
        let report = Linter(configuration: configuration).lint(paths)
        switch format {
        case .clang: print(report.clangText(), terminator: "")
        case .github: print(report.githubText(), terminator: "")
        case .json: print(report.jsonDocument().jsonText(pretty: true))
        case .sarif: print(report.sarifDocument().jsonText(pretty: true))
        case .junit: print(report.junitText(failOn: failingSeverity), terminator: "")
        }
        FileHandle.standardError.write(Data("\(commandName): \(report.summaryLine)\n".utf8))
        let status = report.exitStatus(failOn: failingSeverity)
        if let stampFile { try stamp(stampFile, passed: status == 0, commandName: commandName) }
        if status != 0 { throw ExitCode(status) }
    }

    /// Writes the stamp after a run that passed and removes it after one that failed, so that a build system
    /// that waits for it runs the check again until it passes.
    private func stamp(_ path: String, passed: Bool, commandName: String) throws {
        guard passed else {
            try? FileManager.default.removeItem(atPath: path)
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            FileHandle.standardError.write(Data("\(commandName): cannot write --stamp-file \(path)\n".utf8))
            throw ExitCode(2)
        }
    }
}
