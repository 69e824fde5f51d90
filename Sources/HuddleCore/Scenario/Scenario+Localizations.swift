public import Foundation
public import HuddleLocalization

extension Scenario {
    /// The apps' localized strings, read from each app's `localizations` folder.
    public struct Localizations: Sendable {
        public var bundles: [String: LocalizationBundle]
        /// Problems that did not stop loading (a key defined twice, say).
        public var warnings: [CatalogWarning]

        /// An app's bundle; an app without a folder gets an empty one in its development language.
        public func bundle(for app: App) -> LocalizationBundle {
            bundles[app.bundleIdentifier] ?? LocalizationBundle(developmentLanguage: app.developmentLanguage)
        }
    }

    /// Reads every app's `localizations` folder, relative to the scenario file's folder.
    /// - Throws: ``ScenarioError`` naming the app and the catalog file, line and key path of a bad catalog.
    public func loadLocalizations(relativeTo scenarioURL: URL) throws(ScenarioError) -> Localizations {
        var result = Localizations(bundles: [:], warnings: [])
        let base = scenarioURL.deletingLastPathComponent()
        for app in apps {
            guard let path = app.localizationsPath else { continue }
            let folder = base.appendingPathComponent(path)
            do {
                let output = try LocalizationLoader(developmentLanguage: app.developmentLanguage).load(directory: folder)
                result.bundles[app.bundleIdentifier] = output.bundle
                result.warnings += output.warnings
            } catch {
                throw ScenarioError(
                    eventIndex: nil, message: "apps.\(app.bundleIdentifier).localizations (\(path)): \(error)",
                    file: scenarioURL.lastPathComponent)
            }
        }
        return result
    }

    /// The apps as an Android device's shade reads them: each with the string resources of its `localizations` folder
    /// (`values*/*.xml`), checked.
    /// - Throws: ``ScenarioError`` naming the app and the resource file, line and column of a bad one.
    public func androidAppRecords(relativeTo scenarioURL: URL) throws(ScenarioError) -> [AppRecord] {
        let base = scenarioURL.deletingLastPathComponent()
        var records: [AppRecord] = []
        for app in apps {
            var record = app.record
            if let path = app.localizationsPath {
                do {
                    let files = try LocalizationLoader.files(in: base.appendingPathComponent(path)).filter { AndroidResourceSet.isResourcePath($0.path) }
                    record.localizationFiles = Dictionary(files.map { ($0.path, $0.data) }, uniquingKeysWith: { _, last in last })
                    _ = try AndroidResourceSet(files: record.localizationFiles)
                } catch {
                    throw ScenarioError(
                        eventIndex: nil, message: "apps.\(app.bundleIdentifier).localizations (\(path)): \(error)", file: scenarioURL.lastPathComponent)
                }
            }
            records.append(record)
        }
        return records
    }

    /// Plays a scenario read from `url`, with its apps' localizations.
    /// - Throws: ``ScenarioError`` naming the file as well as the event, so that a refused category format
    ///   says where it was written.
    public func play(relativeTo url: URL) throws(ScenarioError) -> (center: Center, warnings: [CatalogWarning]) {
        let (played, warnings) = try playDevice(relativeTo: url)
        return (played.center, warnings)
    }

    /// ``playDevice(localizations:)`` of a scenario read from `url`, with its apps' localizations.
    public func playDevice(relativeTo url: URL) throws(ScenarioError) -> (played: Played, warnings: [CatalogWarning]) {
        let localizations = try loadLocalizations(relativeTo: url)
        do {
            return (try playDevice(localizations: { localizations.bundle(for: $0) }), localizations.warnings)
        } catch {
            var located = error
            located.file = located.file ?? url.lastPathComponent
            throw located
        }
    }
}
