/// The localized strings of one app (or of Huddle itself) in every language it ships, and the lookup
/// that picks a language for a viewer.
///
/// Filled from `.strings`, `.stringsdict` and `.xcstrings` files, or built in code. Matching follows
/// iOS and behavior.md section 7: for each preferred language in turn, the exact tag, then its CLDR parents
/// (`pt-AO`, `pt-PT`, `pt`), or shorter tags where CLDR names no parent (`de-AT`, then `de`), then the
/// development language, then the key itself.
public struct LocalizationBundle: Sendable {
    /// The language whose strings are used when none of the viewer's languages is available.
    public var developmentLanguage: String
    /// Tables by canonical language tag (see ``LanguageTag``).
    public private(set) var tables: [String: [String: LocalizedEntry]]

    public init(developmentLanguage: String, tables: [String: [String: LocalizedEntry]] = [:]) {
        self.developmentLanguage = LanguageTag(developmentLanguage).canonical
        self.tables = [:]
        for (language, entries) in tables { merge(entries, language: language) }
    }

    /// Adds entries for a language; an entry already present for the same key is replaced.
    public mutating func merge(_ entries: [String: LocalizedEntry], language: String) {
        tables[LanguageTag(language).canonical, default: [:]].merge(entries) { _, new in new }
    }

    /// The languages this bundle has, canonical tags, sorted.
    public var languages: [String] { tables.keys.sorted() }

    /// The bundle's languages in the order a viewer with these preferences would get them.
    ///
    /// Only languages the bundle has appear; the development language comes last if nothing else matched.
    /// - Complexity: O(p) in the number of preferred languages.
    public func matchedLanguages(for preferredLanguages: [String]) -> [String] {
        var matched: [String] = []
        for preferred in preferredLanguages {
            for candidate in LanguageTag(preferred).fallbackChain where tables[candidate] != nil {
                if !matched.contains(candidate) { matched.append(candidate) }
            }
        }
        if !matched.contains(developmentLanguage) { matched.append(developmentLanguage) }
        return matched
    }

    /// Looks a key up for a viewer.
    /// - Returns: the entry and the language it came from, or `nil` when no matched language has the key
    ///   (callers then use the key itself, as iOS does).
    public func entry(forKey key: String, preferredLanguages: [String]) -> (entry: LocalizedEntry, language: String)? {
        for language in matchedLanguages(for: preferredLanguages) {
            if let entry = tables[language]?[key] { return (entry, language) }
        }
        return nil
    }
}
