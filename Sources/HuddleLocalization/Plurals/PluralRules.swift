/// The CLDR plural rules of one locale: which category (`one`, `few`, …) a number takes.
///
/// ```swift
/// let rules = PluralRules.cardinal(for: "ru-RU")
/// rules.category(for: 21)                                 // .one
/// rules.category(for: try PluralOperands(decimal: "1.5")) // .other
/// ```
///
/// Built from `PluralRuleTable`, generated from CLDR by `Tools/generate-plural-rules.py`. Looking rules up
/// parses nothing after the first use of the table; a `PluralRules` value holds its parsed conditions, so
/// `category(for:)` allocates nothing.
public struct PluralRules: Sendable {
    /// The CLDR locale whose rules were picked ("pt_PT", "de", "root").
    public let locale: String
    /// The categories these rules can produce, in CLDR order, always ending with `.other`.
    public let categories: [PluralCategory]
    private let ruleSet: PluralRuleCatalog.CompiledRuleSet

    private init(_ entry: PluralRuleCatalog.Entry) {
        locale = entry.locale
        ruleSet = PluralRuleCatalog.ruleSets[entry.ruleSet]
        categories = ruleSet.categories
    }

    /// Cardinal (counting) rules for a BCP 47 tag or ICU-style identifier ("pt-PT", "pt_PT",
    /// "zh-Hant-TW", "de-AT", "sr-Latn", "EN").
    ///
    /// Exact match first, then subtags dropped from the right (pt-PT has its own rules; de-AT uses de's),
    /// case-insensitively, with deprecated and three-letter language codes mapped to CLDR's ("iw" is
    /// "he"). Unknown languages get the root rules, where everything is `other`. O(number of subtags), and
    /// allocation-free for identifiers of up to 15 bytes.
    public static func cardinal(for locale: String) -> PluralRules {
        PluralRules(PluralRuleCatalog.entry(for: locale, kind: .cardinal))
    }

    /// Ordinal (ranking: 1st, 2nd, 3rd) rules, looked up like `cardinal(for:)`. Locales without their own
    /// ordinal rules get root's, where everything is `other`.
    public static func ordinal(for locale: String) -> PluralRules {
        PluralRules(PluralRuleCatalog.entry(for: locale, kind: .ordinal))
    }

    /// The category of an integer (negative numbers count as their absolute value). O(size of the
    /// rules), no allocation.
    public func category(for integer: Int) -> PluralCategory {
        category(for: PluralOperands(integer))
    }

    /// The category of a number given as operands: the first category, in CLDR order, whose condition
    /// holds, else `other`. O(size of the rules), no allocation.
    public func category(for operands: PluralOperands) -> PluralCategory {
        for (category, condition) in ruleSet.conditions where condition.matches(operands) {
            return category
        }
        return .other
    }

    /// The CLDR condition of a category, as rule text ("i = 1 and v = 0"); nil for `other`, which is
    /// whatever the other conditions leave, and for categories these rules do not use.
    public func condition(for category: PluralCategory) -> String? {
        ruleSet.texts[category]
    }

    /// Every CLDR locale that has its own cardinal rules, sorted (for tests and `huddle plural --list`).
    /// Root, the fallback, is not listed.
    public static var cardinalLocales: [String] {
        PluralRuleTable.cardinal.keys.filter { $0 != "root" }.sorted()
    }

    /// Every CLDR locale that has its own ordinal rules, sorted; root is not listed.
    public static var ordinalLocales: [String] {
        PluralRuleTable.ordinal.keys.filter { $0 != "root" }.sorted()
    }

    /// The CLDR release the rules come from ("49"), as the generator read it from Babel.
    public static var cldrVersion: String { PluralRuleTable.cldrVersion }
}
