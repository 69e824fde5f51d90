import HuddleLocalization

/// Huddle's own strings: the default summaries and placeholders, in every language Huddle ships.
///
/// Each is a plural entry so that a language's CLDR categories each get their grammatical form.
enum HuddleStrings {
    /// "%u more notifications": the default summary without arguments.
    static let summary = "SUMMARY"
    /// "%u more notifications from %@": the default summary when the rest has summary arguments.
    static let summaryWithArguments = "SUMMARY_WITH_ARGUMENTS"
    /// "Notification": the default hidden-previews line for a single notification.
    static let placeholderSingle = "PLACEHOLDER_SINGLE"
    /// "%u Notifications": the default hidden-previews line for several.
    static let placeholder = "PLACEHOLDER"
    /// "%u notifications": how many a stack holds, as `huddle preview` heads it.
    static let count = "COUNT"

    static let bundle: LocalizationBundle = {
        var bundle = LocalizationBundle(developmentLanguage: "en")
        for (language, strings) in table {
            var entries: [String: LocalizedEntry] = [:]
            entries[summary] = plural(strings.summary)
            entries[summaryWithArguments] = plural(strings.summaryWithArguments)
            entries[placeholderSingle] = .text(strings.placeholderSingle)
            entries[placeholder] = plural(strings.placeholder)
            entries[count] = plural(strings.count ?? strings.placeholder)
            bundle.merge(entries, language: language)
        }
        return bundle
    }()

    private static func plural(_ forms: [PluralCategory: String]) -> LocalizedEntry {
        .plural(PluralFormat(format: "%#@count@", variables: ["count": PluralVariable(valueType: "u", forms: forms)]))
    }

    struct Strings {
        var summary: [PluralCategory: String]
        var summaryWithArguments: [PluralCategory: String]
        var placeholderSingle: String
        var placeholder: [PluralCategory: String]
        /// A stack's count where it differs from the placeholder: English writes Apple's placeholder in title
        /// case ("3 Notifications"), a count in a heading in lower case. Every other language writes both
        /// alike.
        var count: [PluralCategory: String]? = nil
    }

    /// The translations, by language tag (see HuddleStrings+Translations.swift).
    static var table: [String: Strings] { translations }
}

extension Viewer {
    /// The languages Huddle's own summaries and placeholders are written in, sorted by tag: those a
    /// viewer can pick knowing every default text will follow.
    public static let languagesWithDefaultTexts: [String] = HuddleStrings.table.keys.sorted()
}
