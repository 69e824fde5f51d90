@testable import HuddleLocalization
import Testing

@Suite("PluralRules")
struct PluralRulesTests {
    @Test("cardinal categories of integers", arguments: [
        ("en", 1, PluralCategory.one), ("en", 2, .other), ("en", 0, .other),
        ("ru", 1, .one), ("ru", 2, .few), ("ru", 5, .many), ("ru", 11, .many), ("ru", 21, .one),
        ("ru", 22, .few), ("ru", 111, .many), ("ru", 0, .many), ("ru", -21, .one),
        ("pl", 1, .one), ("pl", 2, .few), ("pl", 5, .many), ("pl", 12, .many), ("pl", 21, .many),
        ("pl", 22, .few), ("pl", 0, .many),
        ("ar", 0, .zero), ("ar", 1, .one), ("ar", 2, .two), ("ar", 3, .few), ("ar", 10, .few),
        ("ar", 11, .many), ("ar", 99, .many), ("ar", 100, .other), ("ar", 103, .few),
        ("he", 1, .one), ("he", 2, .two), ("he", 20, .other), ("he", 0, .other),
        ("fr", 0, .one), ("fr", 1, .one), ("fr", 2, .other), ("fr", 1_000_000, .many), ("fr", 2_000_000, .many),
        ("fr", 1_000_001, .other),
        ("ja", 0, .other), ("ja", 1, .other), ("ja", 2, .other),
        ("pt", 0, .one), ("pt", 1, .one), ("pt-PT", 0, .other), ("pt-PT", 1, .one), ("pt_PT", 1_000_000, .many),
        ("cy", 0, .zero), ("cy", 3, .few), ("cy", 6, .many), ("cy", 7, .other),
        // New in CLDR 49 (Babel 2.19): vi has `one`, gl `many` for millions, cv `zero`.
        ("vi", 0, .one), ("vi", 1, .one), ("vi", 2, .other), ("gl", 1, .one), ("gl", 2, .other),
        ("gl", 1_000_000, .many), ("gl", 1_000_001, .other), ("cv", 0, .zero), ("cv", 1, .one), ("cv", 2, .other),
        ("xx", 1, .other), ("xx", 0, .other),
    ])
    func integerCategories(locale: String, number: Int, expected: PluralCategory) {
        #expect(PluralRules.cardinal(for: locale).category(for: number) == expected)
    }

    @Test("cardinal categories of decimal text", arguments: [
        ("en", "1.0", PluralCategory.other), ("en", "1", .one), ("en", "0.5", .other),
        ("ru", "1.5", .other), ("ru", "21.0", .other),
        ("pl", "1.5", .other),
        ("ar", "0.0", .zero), ("ar", "1.0", .one), ("ar", "3.0", .few), ("ar", "1.5", .other),
        ("fr", "1.5", .one), ("fr", "1c6", .many), ("fr", "1.5c6", .many), ("fr", "1c3", .other),
        ("fr", "1000000.0", .other),
        ("es", "1.0", .one), ("es", "1c6", .many), ("pt", "1.5", .one), ("pt-PT", "1.5", .other),
        ("is", "1.1", .one), ("is", "2.0", .other), ("lv", "0.1", .one), ("lv", "0.11", .zero),
        ("lt", "1.5", .many), ("si", "0.1", .one), ("he", "0.5", .one),
    ])
    func decimalCategories(locale: String, text: String, expected: PluralCategory) throws {
        let operands = try PluralOperands(decimal: text)
        #expect(PluralRules.cardinal(for: locale).category(for: operands) == expected)
    }

    @Test("ordinal categories", arguments: [
        ("en", 1, PluralCategory.one), ("en", 2, .two), ("en", 3, .few), ("en", 4, .other),
        ("en", 11, .other), ("en", 12, .other), ("en", 13, .other), ("en", 21, .one), ("en", 22, .two),
        ("en", 23, .few), ("en", 111, .other), ("fr", 1, .one), ("fr", 2, .other),
        ("it", 8, .many), ("it", 11, .many), ("it", 800, .many), ("it", 9, .other),
        ("sv", 1, .one), ("sv", 11, .other), ("ru", 1, .other), ("pt-PT", 1, .other), ("xx", 1, .other),
        // New in CLDR 49 (Babel 2.19): Spanish and Afrikaans ordinals.
        ("es", 1, .one), ("es", 3, .one), ("es", 2, .other), ("es", 11, .other), ("es", 21, .one),
        ("af", 1, .other), ("af", 2, .few), ("af", 19, .few), ("af", 20, .other), ("af", 102, .few),
    ])
    func ordinalCategories(locale: String, number: Int, expected: PluralCategory) {
        #expect(PluralRules.ordinal(for: locale).category(for: number) == expected)
    }

    @Test("locale identifiers resolve to the CLDR locale with rules", arguments: [
        ("pt-PT", "pt_PT"), ("pt_PT", "pt_PT"), ("PT-pt", "pt_PT"), ("pt-PT-u-nu-latn", "pt_PT"),
        ("pt", "pt"), ("pt-BR", "pt"),
        // CLDR's parentLocales: pt-AO's parent is pt-PT. Since CLDR 49 ht's is no longer fr-HT, and ht has
        // no rules of its own, so it ends at root.
        ("pt-AO", "pt_AO"), ("pt-MZ", "pt_MZ"), ("ht", "root"), ("ht-HT", "root"),
        ("zh-Hant-TW", "zh"), ("zh_Hans", "zh"), ("de-AT", "de"), ("sr-Latn", "sr"), ("EN", "en"),
        ("en_US.UTF-8", "en"), ("en_US@calendar=gregorian", "en"), ("ca-ES-valencia", "ca"),
        ("iw", "he"), ("iw-IL", "he"), ("in", "id"), ("tl", "fil"), ("sh", "sr"), ("eng", "en"),
        ("no", "no"), ("nb-NO", "nb"), ("xx", "root"), ("", "root"), ("root", "root"), ("und", "root"),
        ("C", "root"), ("a-much-longer-identifier-than-fifteen-bytes", "root"),
    ])
    func cardinalLocaleResolution(identifier: String, expected: String) {
        #expect(PluralRules.cardinal(for: identifier).locale == expected)
    }

    @Test("locales that CLDR's parentLocales sends elsewhere take their parent's rules", arguments: [
        ("pt-AO", "pt-PT"), ("pt-CH", "pt-PT"), ("pt-MZ", "pt-PT"),
    ])
    func parentLocaleRules(locale: String, parent: String) {
        let numbers = [0, 1, 2, 5, 1_000_000]
        #expect(numbers.map(PluralRules.cardinal(for: locale).category) == numbers.map(PluralRules.cardinal(for: parent).category))
        #expect(PluralRules.cardinal(for: locale).categories == PluralRules.cardinal(for: parent).categories)
        #expect(numbers.map(PluralRules.ordinal(for: locale).category) == numbers.map(PluralRules.ordinal(for: parent).category))
    }

    /// CLDR 47 (Babel 2.18) named fr-HT as ht's parent, so Haitian Creole took French's rules; CLDR 49
    /// (Babel 2.19) names no parent for ht and gives it no rules, so every number is `other` (root's).
    @Test func haitianCreoleNoLongerCountsAsFrench() {
        let rules = PluralRules.cardinal(for: "ht")
        #expect(rules.locale == "root")
        #expect(rules.categories == [.other])
        for number in [0, 1, 2, 1_000_000] {
            #expect(rules.category(for: number) == .other, "ht \(number)")
        }
        #expect(PluralRules.ordinal(for: "ht").categories == [.other])
    }

    @Test("ordinal rules resolve on their own table", arguments: [
        ("en-GB", "en"), ("pt-PT", "pt"), ("ja", "ja"), ("ak", "root"), ("iw", "he"), ("xx", "root"),
    ])
    func ordinalLocaleResolution(identifier: String, expected: String) {
        #expect(PluralRules.ordinal(for: identifier).locale == expected)
    }

    @Test("categories in CLDR order, ending with other", arguments: [
        ("en", [PluralCategory.one, .other]),
        ("ar", [.zero, .one, .two, .few, .many, .other]),
        ("ru", [.one, .few, .many, .other]),
        ("fr", [.one, .many, .other]),
        ("vi", [.one, .other]),
        ("gl", [.one, .many, .other]),
        ("he", [.one, .two, .other]),
        ("ja", [.other]),
        ("xx", [.other]),
    ])
    func categories(locale: String, expected: [PluralCategory]) {
        #expect(PluralRules.cardinal(for: locale).categories == expected)
    }

    @Test("every listed locale resolves to itself, with sorted categories ending in other")
    func everyLocale() {
        let locales = PluralRules.cardinalLocales
        #expect(locales.count > 200)
        #expect(locales == locales.sorted())
        #expect(!locales.contains("root"))
        for locale in locales {
            let rules = PluralRules.cardinal(for: locale)
            #expect(rules.locale == locale)
            #expect(rules.categories.last == .other)
            #expect(rules.categories == rules.categories.sorted())
            #expect(Set(rules.categories).count == rules.categories.count)
        }
        for locale in PluralRules.ordinalLocales {
            #expect(PluralRules.ordinal(for: locale).locale == locale)
        }
    }

    @Test("every rule set of the generated table parses")
    func tableParses() throws {
        var count = 0
        for texts in PluralRuleTable.ruleSets {
            for (_, text) in texts.conditions {
                _ = try PluralRuleParser.parse(text)
                count += 1
            }
        }
        #expect(count > 100)
        #expect(PluralRuleTable.cardinal["root"] != nil && PluralRuleTable.ordinal["root"] != nil)
        #expect(PluralRuleTable.ruleSets.indices.contains(PluralRuleTable.cardinal.values.max() ?? -1))
        #expect(PluralRuleTable.ruleSets.indices.contains(PluralRuleTable.ordinal.values.max() ?? -1))
    }

    @Test("alias targets resolve to a language with rules")
    func aliases() {
        for (alias, target) in PluralRuleTable.languageAliases {
            #expect(PluralRules.cardinal(for: alias).locale != "root", "\(alias) -> \(target)")
        }
    }

    @Test("the rule text of each category is available")
    func conditionText() {
        let english = PluralRules.cardinal(for: "en")
        #expect(english.condition(for: .one) == "i = 1 and v = 0")
        #expect(english.condition(for: .other) == nil)
        #expect(english.condition(for: .few) == nil)
        #expect(PluralRules.cldrVersion == "49")
    }

    @Test("rules can be looked up from many tasks at once")
    func concurrentLookups() async {
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let locale = PluralRules.cardinalLocales[index % PluralRules.cardinalLocales.count]
                    let rules = PluralRules.cardinal(for: locale)
                    return (0...200).allSatisfy { rules.category(for: $0) == rules.category(for: $0) }
                        && rules.locale == locale
                }
            }
            for await result in group {
                #expect(result)
            }
        }
    }
}
