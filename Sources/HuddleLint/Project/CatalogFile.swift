import Foundation
import HuddleLocalization

/// A catalog being linted, with what its path says: its language and the table it belongs to.
struct CatalogFile {
    let displayPath: String
    /// The resolved path, to tell whether an app's localizations folder already holds it.
    let absolutePath: String
    let inspection: CatalogInspection
    /// Files of one table are compared with each other: the `.strings` and `.stringsdict` files of one
    /// name in the `.lproj` folders of one folder (as iOS merges them), or one String Catalog.
    let tableKey: String
    /// True for a file in `Base.lproj`, whose entries are in the development language.
    let isBase: Bool
    /// The canonical tag of each language the entries are written in, worked out once per file rather
    /// than for every entry by every rule.
    let canonicalLanguages: [String: String]

    /// The `.lproj` folder a path is in (its last folder), if it is one.
    static func lprojFolder(of path: String) -> (language: String, parent: String)? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count >= 2 else { return nil }
        let folder = components[components.count - 2]
        guard folder.lowercased().hasSuffix(".lproj") else { return nil }
        return (String(folder.dropLast(".lproj".count)), components.dropLast(2).joined(separator: "/"))
    }

    /// Reads and inspects a catalog.
    /// - Returns: the file, or the finding that says why it is not checked.
    static func read(_ url: URL, displayPath: String) -> Result<CatalogFile, UnreadableInput> {
        let isStringCatalog = url.pathExtension.lowercased() == "xcstrings"
        let lproj = lprojFolder(of: displayPath)
        if !isStringCatalog && lproj == nil {
            return .failure(UnreadableInput(finding: LintFinding(
                    .catalogOutsideLproj, file: displayPath,
                    message: "not inside a <language>.lproj folder, so its language is unknown and it is not checked: move it into the folder of its language")))
        }
        let data: Data
        do {
            data = try BoundedFile.read(url, limit: CatalogLimits.maximumFileSize)
        } catch {
            return .failure(UnreadableInput(finding: LintFinding(.unreadableFile, file: displayPath, message: "cannot be read: \(error)")))
        }
        do {
            guard let inspection = try CatalogInspection.inspect(data, file: displayPath, language: lproj?.language ?? "") else {
                return .failure(UnreadableInput(finding: LintFinding(.unreadableFile, file: displayPath, message: "not a catalog")))
            }
            let tableName = url.deletingPathExtension().lastPathComponent
            let languages = Set(inspection.entries.map(\.language))
            return .success(
                CatalogFile(
                    displayPath: displayPath, absolutePath: url.resolvingSymlinksInPath().path, inspection: inspection,
                    tableKey: isStringCatalog ? displayPath : "\(lproj?.parent ?? "")/\(tableName)",
                    isBase: lproj?.language.lowercased() == "base",
                    canonicalLanguages: Dictionary(uniqueKeysWithValues: languages.map { ($0, LanguageTag($0).canonical) })))
        } catch {
            return .failure(UnreadableInput(finding: LintFinding(
                    .unreadableFile, file: displayPath, line: error.line, column: error.column,
                    message: "cannot be read: " + (error.keyPath.map { "\($0): " } ?? "") + error.message)))
        }
    }
}
