public import Foundation

/// One localization file as a linter sees it: every entry with the language it is in and where it is
/// written, the translation states a String Catalog records, and the problems a strict read would stop at.
///
/// The readers (``StringsFileReader``, ``StringsdictReader``, ``StringCatalogReader``) refuse a file at its
/// first problem, which is what loading for display needs. A linter wants every problem of a file, so
/// here a plural variable without `other` and a `%#@name@` without its variable are recorded in
/// ``problems`` (with codes ``CatalogError/Code/missingOtherForm`` and ``CatalogError/Code/undefinedVariable``)
/// and the rest of the file is still read. Anything else that is wrong (syntax, types, limits) is thrown.
public struct CatalogInspection: Sendable {
    public enum Format: String, Sendable, Hashable {
        case strings, stringsdict, stringCatalog
    }

    /// One entry of one language.
    public struct Entry: Sendable {
        public var key: String
        /// The language as written: the `.lproj` folder's name, or the String Catalog's localization key.
        public var language: String
        public var value: LocalizedEntry
        /// Where the entry is written (the key in `.strings` and `.stringsdict` files, the localization in a
        /// String Catalog); `nil` in binary property lists.
        public var location: SourceLocation?
        /// Where each plural variable is written, by name.
        public var variableLocations: [String: SourceLocation]
        /// A String Catalog's `stringUnit.state` for this localization (`translated`, `needs_review`,
        /// `new`, `stale`), when it has one.
        public var state: String?
    }

    /// A key of a String Catalog, whatever its localizations.
    public struct CatalogKey: Sendable {
        public var key: String
        public var location: SourceLocation
        /// `extractionState` (`manual`, `stale`, `extracted_with_value`, `migrated`), when written.
        public var extractionState: String?
        /// False when the catalog marks the key `"shouldTranslate": false`.
        public var shouldTranslate: Bool
        /// True when the source language has no localization, so the key stands for itself there.
        public var standsForItself: Bool
    }

    /// The file as the caller named it.
    public var file: String
    public var format: Format
    /// The String Catalog's `sourceLanguage`; `nil` for other files.
    public var sourceLanguage: String?
    /// Entries in file order for `.strings` and `.stringsdict` files; by key then language for catalogs.
    public var entries: [Entry]
    /// A String Catalog's keys, sorted; empty for other files.
    public var catalogKeys: [CatalogKey]
    /// Keys defined more than once in the file, each with where its later definition is.
    public var repeatedKeys: [(key: String, location: SourceLocation?)]
    /// Problems found that did not stop the read (see the type's description).
    public var problems: [CatalogError]

    /// Reads one file, choosing the reader by its extension (`.strings`, `.stringsdict`, `.xcstrings`).
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name findings use.
    ///   - language: the language of a `.strings` or `.stringsdict` file (its `.lproj` folder); ignored for
    ///     String Catalogs, which name their languages.
    /// - Returns: `nil` for a file of another kind.
    /// - Throws: ``CatalogError`` when the file cannot be read, or is past a limit of ``CatalogLimits``.
    /// - Complexity: O(n) in the size of the file.
    public static func inspect(_ data: Data, file: String, language: String) throws(CatalogError) -> CatalogInspection? {
        try CatalogLimits.checkSize(data.count, file: file)
        switch LocalizationFile(path: file, data: Data()).fileExtension {
        case "strings": return try inspectStrings(data, file: file, language: language)
        case "stringsdict": return try inspectStringsdict(data, file: file, language: language)
        case "xcstrings": return try inspectStringCatalog(data, file: file)
        default: return nil
        }
    }

    private static func inspectStrings(_ data: Data, file: String, language: String) throws(CatalogError) -> CatalogInspection {
        let table = try StringsFileReader().readTable(data, file: file)
        let entries = table.entries.keys.sorted { order($0, $1, by: table.locations) }.map { key in
            Entry(
                key: key, language: language, value: .text(table.entries[key] ?? ""), location: table.locations[key],
                variableLocations: [:], state: nil)
        }
        return CatalogInspection(
            file: file, format: .strings, sourceLanguage: nil, entries: entries, catalogKeys: [],
            repeatedKeys: table.repeatedKeys.map { ($0.key, SourceLocation(line: $0.line, column: $0.column)) }, problems: [])
    }

    private static func inspectStringsdict(_ data: Data, file: String, language: String) throws(CatalogError) -> CatalogInspection {
        let contents = try StringsdictReader().readContents(data, file: file, isLenient: true)
        let entries = contents.entries.keys.sorted { order($0, $1, by: contents.locations) }.compactMap { key in
            contents.entries[key].map { value in
                Entry(
                    key: key, language: language, value: value, location: contents.locations[key],
                    variableLocations: contents.variableLocations[key] ?? [:], state: nil)
            }
        }
        return CatalogInspection(
            file: file, format: .stringsdict, sourceLanguage: nil, entries: entries, catalogKeys: [],
            repeatedKeys: contents.repeatedKeys.map { ($0.key, SourceLocation(line: $0.line, column: $0.column)) },
            problems: contents.problems)
    }

    private static func inspectStringCatalog(_ data: Data, file: String) throws(CatalogError) -> CatalogInspection {
        let contents = try StringCatalogReader().readContents(data, file: file, isLenient: true)
        let catalog = contents.catalog
        var entries: [Entry] = []
        for (language, table) in catalog.tables.sorted(by: { $0.key < $1.key }) {
            for (key, value) in table.sorted(by: { $0.key < $1.key }) where contents.locations[language]?[key] != nil {
                entries.append(
                    Entry(
                        key: key, language: language, value: value, location: contents.locations[language]?[key],
                        variableLocations: contents.variableLocations[language]?[key] ?? [:],
                        state: contents.states[language]?[key]))
            }
        }
        let keys = contents.keyLocations.keys.sorted().compactMap { key in
            contents.keyLocations[key].map { location in
                CatalogKey(
                    key: key, location: location, extractionState: contents.extractionStates[key],
                    shouldTranslate: !contents.keysNotToTranslate.contains(key),
                    standsForItself: catalog.keysStandingForThemselves.contains(key))
            }
        }
        return CatalogInspection(
            file: file, format: .stringCatalog, sourceLanguage: catalog.sourceLanguage, entries: entries, catalogKeys: keys,
            repeatedKeys: [], problems: contents.problems)
    }

    /// File order where locations are known, else by key.
    private static func order(_ lhs: String, _ rhs: String, by locations: [String: SourceLocation]) -> Bool {
        switch (locations[lhs], locations[rhs]) {
        case (let left?, let right?) where left != right:
            return (left.line, left.column ?? 0) < (right.line, right.column ?? 0)
        default:
            return lhs < rhs
        }
    }
}
