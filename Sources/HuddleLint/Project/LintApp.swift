import HuddleCore
import HuddleLocalization

/// An app as the linter knows it: what its description declares (when one was given), and its catalogs.
struct LintApp {
    /// A category as declared, with where it was declared.
    struct DeclaredCategory {
        var category: NotificationCategory
        var document: JSONDocument
        var path: JSONDocument.Path
    }

    /// `nil` for the app that catalogs and payloads belong to when nothing names one.
    let bundleIdentifier: String?
    /// From the app's description, when it gives one.
    var declaredDevelopmentLanguage: String?
    /// `nil` when no description of the app was given: then nothing can be said about its categories.
    var categories: [String: DeclaredCategory]?
    var catalogs: [CatalogFile] = []
    /// Where the app is described, for messages.
    var describedIn: String?

    init(bundleIdentifier: String?) {
        self.bundleIdentifier = bundleIdentifier
    }

    /// The app's name in messages.
    var name: String { bundleIdentifier ?? "the app" }

    /// The development language: the description's, else the first String Catalog's source language,
    /// else `fallback` (the `--development-language` option), else English.
    func developmentLanguage(fallback: String?) -> String {
        let catalogLanguage = catalogs.compactMap(\.inspection.sourceLanguage).first
        return LanguageTag(declaredDevelopmentLanguage ?? fallback ?? catalogLanguage ?? "en").canonical
    }

    /// The app's strings in every language, as rendering would look them up (``LocalizationLoader``'s
    /// order, simplified): within a language a `.stringsdict` entry wins over a String Catalog's, which
    /// wins over a `.strings` file's, then the first file by path; `Base.lproj` counts as the development
    /// language; a String Catalog key that only stands for itself fills in what no file defines.
    func bundle(developmentLanguage: String) -> LocalizationBundle {
        var tables: [String: [String: LocalizedEntry]] = [:]
        let ordered = catalogs.sorted { ($0.inspection.format.precedence, $0.displayPath) < ($1.inspection.format.precedence, $1.displayPath) }
        for catalog in ordered {
            for entry in catalog.inspection.entries {
                let language = catalog.language(of: entry, developmentLanguage: developmentLanguage)
                if tables[language]?[entry.key] == nil { tables[language, default: [:]][entry.key] = entry.value }
            }
        }
        for catalog in ordered {
            for key in catalog.inspection.catalogKeys where key.standsForItself {
                let language = LanguageTag(catalog.inspection.sourceLanguage ?? developmentLanguage).canonical
                if tables[language]?[key.key] == nil { tables[language, default: [:]][key.key] = .text(key.key) }
            }
        }
        return LocalizationBundle(developmentLanguage: developmentLanguage, tables: tables)
    }
}

extension CatalogFile {
    /// The canonical language of an entry: a String Catalog's own, an `.lproj` folder's, `Base` being the
    /// development language.
    func language(of entry: CatalogInspection.Entry, developmentLanguage: String) -> String {
        if isBase { return developmentLanguage }
        return canonicalLanguages[entry.language] ?? LanguageTag(entry.language).canonical
    }
}

extension CatalogInspection.Format {
    /// Which kind of file wins when two define a key in one language (lower first), as on iOS.
    var precedence: Int {
        switch self {
        case .stringsdict: 0
        case .stringCatalog: 1
        case .strings: 2
        }
    }
}
