import Foundation
import PackagePlugin

/// Lints a target's payloads and localization catalogs during the build, so that their findings show where
/// compiler diagnostics do: `file:line:column: warning: message [rule]` in `swift build`'s output and inline
/// in Xcode. The check runs again only when one of those files changed.
///
/// Warnings and notes never fail the build; an error does (`--fail-on error`, huddle lint's default), since an
/// error is a push or catalog that iOS or APNs will not show as written (a plural without the forms its
/// language needs, a `loc-key` no catalog has). A build-tool plugin takes no arguments, so this is fixed: run
/// `swift package huddle-lint` to choose `--fail-on`, `--disable` or `--app-file`.
@main
struct HuddleLintBuildPlugin: BuildToolPlugin {
    /// The resources huddle lint reads: payloads, Simulator pushes and catalogs.
    static let lintedExtensions: Set<String> = ["json", "apns", "strings", "stringsdict", "xcstrings"]

    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        // Only Swift targets: the command's output is a Swift file (below), which SwiftPM compiles only there.
        guard let target = target as? SwiftSourceModuleTarget else { return [] }
        let inputs = target.sourceFiles.map(\.url).filter { Self.lintedExtensions.contains($0.pathExtension.lowercased()) }
        // A target without such files gets no command, so plain Swift targets build as before.
        guard !inputs.isEmpty else { return [] }
        // SwiftPM runs a build command only for its declared outputs (one without outputs ran once and never
        // again when a catalog changed), and a generated file that is not a source becomes a resource,
        // copied into the app's bundle. So the output is an empty Swift file that the tool writes when the
        // check passes: compiling it costs nothing and ships nothing.
        let stamp = context.pluginWorkDirectoryURL.appending(path: "\(target.name)-huddle-lint-stamp.swift")
        return [
            .buildCommand(
                displayName: "huddle-lint \(target.name)",
                executable: try context.tool(named: "huddle-lint").url,
                // The folder rather than the files: a .json found in a folder is linted only when it is a
                // payload or a scenario, so an app's other JSON resources are not reported as bad pushes.
                arguments: [target.directoryURL.path, "--stamp-file", stamp.path],
                inputFiles: inputs,
                outputFiles: [stamp]
            )
        ]
    }
}
