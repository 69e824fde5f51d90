import Foundation
import PackagePlugin

/// `swift package huddle-lint [--target NAME ...] [huddle lint's options and paths]`: lints the folders of the
/// package's targets (all of them, or those named with `--target`) with `huddle-lint`, and passes every other
/// argument through, so `--fail-on warning`, `--format sarif` or `--app-file push-app.json` work as they do for
/// `huddle lint`. Paths in the arguments are taken from the package's folder, where the tool runs; findings name
/// files from there too.
///
/// The report is the only thing on standard output (`--format sarif > huddle.sarif` works); the build's progress
/// and the summary go to standard error. `swift package` fails when a finding reaches `--fail-on` (errors, by
/// default) or an input cannot be read. The tool only reads, so the plugin asks for no write permission.
///
/// SwiftPM 6.3 builds a command plugin's tool again, whole, at every run (swiftlang/swift-package-manager#7210):
/// about a minute and a half on two cores, swift-crypto's C sources most of it. Building the tool through
/// `packageManager.build` instead was quick when repeated, but it and `swift build` then rebuilt each other's
/// copy of the tool at every switch, which costs the developer's build loop more.
@main
struct HuddleLintCommandPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let packageFolder = context.package.directoryURL.standardizedFileURL
        let folders = targets.compactMap { ($0 as? any SourceModuleTarget)?.directoryURL }.map { relativePath(of: $0, in: packageFolder) }

        let process = Process()
        process.executableURL = try context.tool(named: "huddle-lint").url
        process.arguments = folders + extractor.remainingArguments
        process.currentDirectoryURL = packageFolder
        // Whatever a plugin prints lands on SwiftPM's standard output, so the tool's standard error (its summary,
        // a usage error) is passed on as a diagnostic instead, which SwiftPM writes to standard error.
        let said = Pipe()
        process.standardError = said
        try process.run()
        let summary = String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        if process.terminationReason == .exit, process.terminationStatus == 0 {
            if !summary.isEmpty { Diagnostics.progress(summary) }
        } else {
            // An error diagnostic is what makes `swift package` exit with a failure.
            Diagnostics.error(summary.isEmpty ? "huddle-lint exited with status \(process.terminationStatus)" : summary, file: nil, line: nil)
        }
    }

    /// `Sources/App` for a folder inside the package, so that findings read as a developer would write
    /// them; the absolute path otherwise.
    private func relativePath(of folder: URL, in packageFolder: URL) -> String {
        let folderComponents = folder.standardizedFileURL.pathComponents
        let packageComponents = packageFolder.pathComponents
        guard folderComponents.starts(with: packageComponents), folderComponents.count > packageComponents.count else {
            return folder.path
        }
        return folderComponents.dropFirst(packageComponents.count).joined(separator: "/")
    }
}
