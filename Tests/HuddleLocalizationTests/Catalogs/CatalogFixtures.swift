import Foundation
import HuddleLocalization

/// The files under `Tests/HuddleLocalizationTests/Fixtures/Catalogs`, found from this source file's path
/// rather than through bundle resources, so the test target needs no resource processing.
///
/// The fixtures hold no `.lproj` folders: SwiftPM would take those for localized resources of the test
/// target. Tests that need `.lproj` layouts build them from these files.
enum CatalogFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Catalogs", isDirectory: true)

    static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: url(relativePath))
    }

    /// The six languages every kind of fixture has.
    static let languages = ["ru", "pl", "he", "ar", "ja", "de"]

    /// Binds and renders an entry the way a notification would be, numbers in `language`'s digits.
    static func render(_ entry: LocalizedEntry?, _ arguments: [FormatArgument], language: String) throws -> String {
        guard let entry else { throw MissingEntry() }
        return try entry.bind(arguments: arguments, rules: .cardinal(for: language))
            .render(arguments, formatting: LocaleFormatting(identifier: language))
    }

    struct MissingEntry: Error {}

    /// The forms of an entry's only (or named) plural variable.
    static func pluralForms(_ entry: LocalizedEntry?, variable: String? = nil) -> [PluralCategory: String]? {
        guard case .plural(let format)? = entry else { return nil }
        if let variable { return format.variables[variable]?.forms }
        return format.variables.count == 1 ? format.variables.values.first?.forms : nil
    }

    /// A fresh empty folder under the temporary directory, removed by the caller.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("huddle-catalogs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
