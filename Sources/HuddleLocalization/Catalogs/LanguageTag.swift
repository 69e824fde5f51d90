/// A language tag made comparable: BCP 47 (`pt-PT`) and ICU (`pt_PT`) spellings, any case.
///
/// Only what matching needs is modelled: language, script and region subtags; variants and extensions are
/// kept in the canonical text but play no part in fallback.
public struct LanguageTag: Sendable, Hashable, CustomStringConvertible {
    /// The canonical spelling: `pt-PT`, `zh-Hant-TW`, `sr-Latn`.
    public let canonical: String
    public let language: String
    public let script: String?
    public let region: String?

    public init(_ text: String) {
        let subtags = text.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
        var language = subtags.first?.lowercased() ?? ""
        var script: String?
        var region: String?
        var rest: [String] = []
        for subtag in subtags.dropFirst() {
            if script == nil, region == nil, rest.isEmpty, subtag.count == 4, subtag.allSatisfy(\.isLetter) {
                script = subtag.prefix(1).uppercased() + subtag.dropFirst().lowercased()
            } else if region == nil, rest.isEmpty,
                (subtag.count == 2 && subtag.allSatisfy(\.isLetter)) || (subtag.count == 3 && subtag.allSatisfy(\.isNumber))
            {
                region = subtag.uppercased()
            } else {
                rest.append(subtag.lowercased())
            }
        }
        // Xcode's legacy folder names and Apple's older tags.
        switch language {
        case "base": language = "base"
        case "english": language = "en"
        case "german": language = "de"
        case "french": language = "fr"
        case "japanese": language = "ja"
        case "spanish": language = "es"
        case "italian": language = "it"
        case "dutch": language = "nl"
        default: break
        }
        self.language = language
        self.script = script
        self.region = region
        self.canonical = ([language] + [script, region].compactMap { $0 } + rest).joined(separator: "-")
    }

    public var description: String { canonical }

    /// The tags to try for this one, most specific first: the tag itself, then its CLDR parents where
    /// CLDR's parentLocales names one (`pt-AO`, `pt-PT`, `pt`; `es-MX`, `es-419`, `es`; `en-AU`, `en-001`,
    /// `en`), else shorter tags down to the bare language (`zh-Hant-TW`, `zh-Hant`, `zh`). Chinese gets its
    /// script from its region when the tag names none (`zh-TW` and `zh-HK` are Traditional, `zh-CN` and `zh`
    /// Simplified), because apps ship `zh-Hans` and `zh-Hant` folders, not regional ones.
    public var fallbackChain: [String] {
        var chain: [String] = []
        var tag = self
        // CLDR's parents never loop; the check keeps a bad table from looping all the same.
        while !chain.contains(tag.canonical) {
            chain.append(tag.canonical)
            guard let parent = ParentLocaleTable.parents[tag.canonical] else {
                for candidate in tag.truncationChain where !chain.contains(candidate) { chain.append(candidate) }
                break
            }
            tag = LanguageTag(parent)
        }
        return chain
    }

    /// The tag, then the tags made by dropping subtags from the right.
    private var truncationChain: [String] {
        var chain: [String] = [canonical]
        func add(_ tag: String) { if !chain.contains(tag) { chain.append(tag) } }
        let script = self.script ?? inferredScript
        if let script {
            if let region { add("\(language)-\(script)-\(region)") }
            add("\(language)-\(script)")
        }
        if let region { add("\(language)-\(region)") }
        add(language)
        return chain
    }

    private var inferredScript: String? {
        guard language == "zh" else { return nil }
        switch region {
        case "TW", "HK", "MO": return "Hant"
        default: return "Hans"
        }
    }
}
