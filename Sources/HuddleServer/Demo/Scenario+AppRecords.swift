import Foundation
import HuddleCore
import HuddleLocalization

extension Scenario {
    /// The scenario's apps as a device stores them, each with the files of its `localizations` folder
    /// (relative to the scenario file at `url`), so that the demo and the example app install what a
    /// scenario file describes.
    /// - Throws: ``CatalogError`` when a folder cannot be read.
    func appRecords(relativeTo url: URL) throws -> [AppRecord] {
        try apps.map { app in
            let files = try app.localizationsPath.map {
                try LocalizationLoader.files(in: url.deletingLastPathComponent().appendingPathComponent($0))
            } ?? []
            return AppRecord(
                topic: app.bundleIdentifier, displayName: app.name, developmentLanguage: app.developmentLanguage,
                settings: app.settings, categories: app.categories,
                localizationFiles: Dictionary(files.map { ($0.path, $0.data) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}
