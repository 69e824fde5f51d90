import Foundation
import PackagePlugin

/// `swift package huddle-lint [--target NAME ...] [huddle lint's options and paths]`: lints the folders of the
/// package's targets (all of them, or those named with `--target`) with `huddle-lint`, and passes every other
/// argument through, so `--fail-on warning`, `--format sarif` or `--app-file push-app.json` work as they do for
/// `huddle lint`. Paths in the arguments are taken from the package's folder, where the tool runs; findings name
/// files from there too.
///
/// The exit status follows the tool's: `swift package` fails when a finding reaches `--fail-on` (errors, by
/// default) or an input cannot be read. The tool only reads, so the plugin asks for no write permission.
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
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            // The findings and the summary are already printed; this only makes `swift package` fail.
            Diagnostics.error("huddle-lint exited with status \(process.terminationStatus)")
            return
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
