public import Foundation

/// Loads an app's localization files into a ``LocalizationBundle``.
///
/// What it reads:
/// - `<language>.lproj/*.strings` and `<language>.lproj/*.stringsdict`, at any depth; `Base.lproj`
///   counts as the development language;
/// - `*.xcstrings` String Catalogs anywhere, each contributing every language it holds.
///
/// Other files are ignored, and `.strings` or `.stringsdict` files outside an `.lproj` folder are skipped
/// with a warning, because nothing says their language.
///
/// On iOS every file is a table of its own and code names the table it looks in; a notification payload
/// names only a key, so Huddle puts every table of a language into one. When two files of a language
/// define the same key differently, one entry is kept and the other reported as a ``CatalogWarning``
/// (identical definitions pass quietly). A key
/// defined twice in one file keeps its last definition, with a warning too. The entry kept
/// comes from, in order of preference: a `<language>.lproj` over `Base.lproj`; the `Localizable` table
/// (the one iOS uses when code names none) over other tables; a `.stringsdict` over a String Catalog over a
/// `.strings` file (iOS prefers a `.stringsdict` entry to a `.strings` entry of the same table); then the
/// path that sorts first. A String Catalog key that only stands for itself in the source language never
/// wins over, or warns about, a real entry.
///
/// The development language is the one given to ``init(developmentLanguage:)``, else the `sourceLanguage`
/// of the first String Catalog (by path), else `en`.
public struct LocalizationLoader: Sendable {
    /// A loaded bundle and what is worth telling its author. (Not named `Result`, which would hide the
    /// standard library's inside this type.)
    public struct Output: Sendable {
        public var bundle: LocalizationBundle
        public var warnings: [CatalogWarning]

        public init(bundle: LocalizationBundle, warnings: [CatalogWarning]) {
            self.bundle = bundle
            self.warnings = warnings
        }
    }

    /// The development language the caller knows (from the app's `CFBundleDevelopmentRegion`), if any.
    public var developmentLanguage: String?

    public init(developmentLanguage: String? = nil) {
        self.developmentLanguage = developmentLanguage
    }

    /// Loads files given in memory.
    /// - Throws: the ``CatalogError`` of the first file (by path) that cannot be read.
    /// - Complexity: O(n) in the total size of the files.
    public func load(files: [LocalizationFile]) throws(CatalogError) -> Output {
        var warnings: [CatalogWarning] = []
        var tables: [SourceTable] = []
        var catalogLanguages: [(path: String, sourceLanguage: String)] = []

        for file in files.sorted(by: { $0.path < $1.path }) {
            let kind: SourceTable.Kind
            switch file.fileExtension {
            case "strings": kind = .strings
            case "stringsdict": kind = .stringsdict
            case "xcstrings": kind = .stringCatalog
            default: continue
            }
            if kind == .stringCatalog {
                let catalog = try StringCatalogReader().read(file.data, file: file.path)
                catalogLanguages.append((file.path, catalog.sourceLanguage))
                for (language, entries) in catalog.tables.sorted(by: { $0.key < $1.key }) {
                    tables.append(
                        SourceTable(
                            path: file.path, language: .named(language), tableName: file.tableName, kind: kind,
                            entries: entries,
                            keysStandingForThemselves: language == catalog.sourceLanguage ? catalog.keysStandingForThemselves : []))
                }
                continue
            }
            guard let folder = file.components.dropLast().last, folder.lowercased().hasSuffix(".lproj") else {
                warnings.append(
                    CatalogWarning(file: file.path, message: "not inside a <language>.lproj folder, so its language is unknown; skipped"))
                continue
            }
            let folderLanguage = String(folder.dropLast(".lproj".count))
            let language: SourceTable.Language = folderLanguage.lowercased() == "base" ? .base : .named(folderLanguage)
            let entries: [String: LocalizedEntry]
            let repeatedKeys: [(key: String, line: Int?, column: Int?)]
            if kind == .strings {
                let table = try StringsFileReader().readTable(file.data, file: file.path)
                (entries, repeatedKeys) = (table.entries.mapValues(LocalizedEntry.text), table.repeatedKeys)
            } else {
                (entries, repeatedKeys) = try StringsdictReader().readTable(file.data, file: file.path)
            }
            for repeated in repeatedKeys {
                warnings.append(
                    CatalogWarning(
                        file: file.path, line: repeated.line, keyPath: repeated.key,
                        message: "defined more than once in this file; the last definition is used"))
            }
            tables.append(
                SourceTable(path: file.path, language: language, tableName: file.tableName, kind: kind, entries: entries))
        }

        let developmentLanguage = LanguageTag(
            self.developmentLanguage ?? catalogLanguages.first?.sourceLanguage ?? "en").canonical
        for catalog in catalogLanguages where LanguageTag(catalog.sourceLanguage).canonical != developmentLanguage {
            warnings.append(
                CatalogWarning(
                    file: catalog.path,
                    message: "the catalog's source language is \(catalog.sourceLanguage), but the development language is \(developmentLanguage)"))
        }

        var byLanguage: [String: [SourceTable]] = [:]
        for table in tables {
            let language: String
            switch table.language {
            case .base: language = developmentLanguage
            case .named(let name): language = LanguageTag(name).canonical
            }
            byLanguage[language, default: []].append(table)
        }
        var bundle = LocalizationBundle(developmentLanguage: developmentLanguage)
        for (language, sources) in byLanguage.sorted(by: { $0.key < $1.key }) {
            bundle.merge(Self.mergeTables(sources, warnings: &warnings), language: language)
        }
        return Output(bundle: bundle, warnings: warnings)
    }

    /// Loads every file under a folder (hidden files and folders excepted).
    ///
    /// Paths in errors and warnings are relative to `directory`; when `directory` is itself an `.lproj`
    /// folder, they start with its name so that its language is known.
    /// - Throws: ``CatalogError`` when the folder or a file cannot be read, or a file is invalid.
    public func load(directory: URL) throws(CatalogError) -> Output {
        try load(files: Self.files(in: directory))
    }

    /// The localization files under a folder, with paths relative to it.
    public static func files(in directory: URL) throws(CatalogError) -> [LocalizationFile] {
        let root = directory.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue,
            let enumerator = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else {
            throw CatalogError(file: directory.path, message: "not a folder that can be read")
        }
        let prefix = root.lastPathComponent.lowercased().hasSuffix(".lproj") ? root.lastPathComponent + "/" : ""
        let rootComponents = root.pathComponents
        var files: [LocalizationFile] = []
        while let url = enumerator.nextObject() as? URL {
            // Android's `values*/*.xml` too: the loader leaves them to AndroidResourceSet.
            guard ["strings", "stringsdict", "xcstrings", "xml"].contains(url.pathExtension.lowercased()),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            else { continue }
            let components = url.standardizedFileURL.resolvingSymlinksInPath().pathComponents
            let relative = prefix + components.dropFirst(rootComponents.count).joined(separator: "/")
            do {
                files.append(LocalizationFile(path: relative, data: try Data(contentsOf: url)))
            } catch {
                throw CatalogError(file: relative, message: "could not be read (\(error.localizedDescription))")
            }
        }
        return files
    }

    /// One language's tables merged into one, preferring entries as the type's documentation says.
    private static func mergeTables(_ sources: [SourceTable], warnings: inout [CatalogWarning]) -> [String: LocalizedEntry] {
        let ordered = sources.sorted { $0.precedes($1) }
        var merged: [String: LocalizedEntry] = [:]
        var origin: [String: String] = [:]
        for source in ordered {
            for key in source.entries.keys.sorted() where !source.keysStandingForThemselves.contains(key) {
                guard let entry = source.entries[key] else { continue }
                if let winner = origin[key] {
                    if merged[key] != entry {
                        warnings.append(
                            CatalogWarning(file: source.path, keyPath: key, message: "also defined in \(winner), whose entry is used"))
                    }
                    continue
                }
                merged[key] = entry
                origin[key] = source.path
            }
        }
        // Keys that only stand for themselves fill in what no file defines.
        for source in ordered {
            for key in source.keysStandingForThemselves where merged[key] == nil {
                merged[key] = source.entries[key]
            }
        }
        return merged
    }
}

/// One file's entries for one language, before merging.
private struct SourceTable {
    enum Kind: Int {
        // Raw values are the preference order.
        case stringsdict = 0
        case stringCatalog = 1
        case strings = 2
    }

    enum Language {
        case base
        case named(String)
    }

    var path: String
    var language: Language
    var tableName: String
    var kind: Kind
    var entries: [String: LocalizedEntry]
    var keysStandingForThemselves: Set<String> = []

    /// True when this table's entries win over `other`'s.
    func precedes(_ other: SourceTable) -> Bool {
        let isBase = { (table: SourceTable) -> Bool in if case .base = table.language { true } else { false } }
        if isBase(self) != isBase(other) { return !isBase(self) }
        let isDefault = tableName == "Localizable"
        if isDefault != (other.tableName == "Localizable") { return isDefault }
        if kind != other.kind { return kind.rawValue < other.kind.rawValue }
        return path < other.path
    }
}
