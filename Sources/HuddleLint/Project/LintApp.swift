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
    /// Its Live Activity types, from its description.
    var liveActivities = ActivityDeclarations()
    /// What its description says its entitlements let its notifications do.
    var capabilities = AppCapabilities()
    /// Its Android notification channels and the manifest's default, from its description; `nil` when it declares none.
    var firebase: FirebaseInstallation?
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

    /// The app's strings in every language, and the file and place each entry was taken from.
    struct Strings {
        var bundle: LocalizationBundle
        /// Where each entry of `bundle` is written, by language then key.
        var origins: [String: [String: (file: String, location: SourceLocation?)]]
    }

    /// The app's strings in every language, as rendering would look them up (``LocalizationLoader``'s
    /// order, simplified): within a language a `.stringsdict` entry wins over a String Catalog's, which
    /// wins over a `.strings` file's, then the first file by path; `Base.lproj` counts as the development
    /// language; a String Catalog key that only stands for itself fills in what no file defines. Each
    /// entry's origin is the file that won, so that a finding about its text points where it is written.
    func strings(developmentLanguage: String) -> Strings {
        var tables: [String: [String: LocalizedEntry]] = [:]
        var origins: [String: [String: (file: String, location: SourceLocation?)]] = [:]
        func take(_ entry: LocalizedEntry, key: String, language: String, file: String, location: SourceLocation?) {
            guard tables[language]?[key] == nil else { return }
            tables[language, default: [:]][key] = entry
            origins[language, default: [:]][key] = (file, location)
        }
        let ordered = catalogs.sorted { ($0.inspection.format.precedence, $0.displayPath) < ($1.inspection.format.precedence, $1.displayPath) }
        for catalog in ordered {
            for entry in catalog.inspection.entries {
                take(
                    entry.value, key: entry.key, language: catalog.language(of: entry, developmentLanguage: developmentLanguage),
                    file: catalog.displayPath, location: entry.location)
            }
        }
        for catalog in ordered {
            let language = LanguageTag(catalog.inspection.sourceLanguage ?? developmentLanguage).canonical
            for key in catalog.inspection.catalogKeys where key.standsForItself {
                take(.text(key.key), key: key.key, language: language, file: catalog.displayPath, location: key.location)
            }
        }
        return Strings(bundle: LocalizationBundle(developmentLanguage: developmentLanguage, tables: tables), origins: origins)
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
