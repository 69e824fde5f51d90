import HuddleLocalization
import Testing

@Suite struct FormatTemplateTests {
    @Test(arguments: [
        ("%u more messages", [FormatConversion.Kind.integer]),
        ("%lu %ld %lld %llu %d %i", Array(repeating: .integer, count: 6)),
        ("%u more messages from %@", [.integer, .object]),
        ("%#@count@", [.pluralVariable("count")]),
        ("100%% sure", []),
    ])
    func acceptsTheAllowedConversions(format: String, kinds: [FormatConversion.Kind]) throws {
        #expect(try FormatTemplate(format).conversions.map(\.kind) == kinds)
    }

    @Test func positionsAreKept() throws {
        let conversions = try FormatTemplate("%2$@ · %1$lu · %1$#@n@").conversions
        #expect(conversions.map(\.position) == [2, 1, 1])
        #expect(conversions.map(\.text) == ["%2$@", "%1$lu", "%1$#@n@"])
        #expect(conversions.map(\.offset) == [0, 7, 15])
    }

    @Test(arguments: [
        ("%s", "conversion \"%s\" at offset 0 is not allowed (only %u, %d, %i with l/ll, %@, %#@var@, positional %n$ forms and %% are)"),
        ("ok %n", "conversion \"%n\" at offset 3 is not allowed (only %u, %d, %i with l/ll, %@, %#@var@, positional %n$ forms and %% are)"),
        ("%x", "conversion \"%x\" at offset 0 is not allowed (only %u, %d, %i with l/ll, %@, %#@var@, positional %n$ forms and %% are)"),
        ("%5u", "conversion \"%5u\" at offset 0 has width, precision or flags, which are not allowed"),
        ("%-u", "conversion \"%-u\" at offset 0 has width, precision or flags, which are not allowed"),
        ("%.1@", "conversion \"%.1@\" at offset 0 has width, precision or flags, which are not allowed"),
        ("%lf", "conversion \"%lf\" at offset 0 is not allowed (only %u, %d, %i with l/ll, %@, %#@var@, positional %n$ forms and %% are)"),
        ("50%", "conversion \"%\" at offset 2 is incomplete: a lone % must be written %%"),
        ("%0$u", "conversion \"%0$\" at offset 0 has an invalid position (positions run from 1 to 32)"),
        ("%33$@", "conversion \"%33$\" at offset 0 has an invalid position (positions run from 1 to 32)"),
        ("%9223372036854775807$u more", "conversion \"%9223372036854775807$\" at offset 0 has an invalid position (positions run from 1 to 32)"),
        ("%99999999999999999999999$@", "conversion \"%99999999999999999999999$\" at offset 0 has an invalid position (positions run from 1 to 32)"),
        ("%#@open", "plural variable \"%#@open\" at offset 0 is not closed with @"),
    ])
    func refusesTheRest(format: String, message: String) {
        do {
            _ = try FormatTemplate(format)
            Issue.record("accepted \(format)")
        } catch {
            #expect(error.description == message)
        }
    }
}

@Suite struct BoundFormatTests {
    let english = LocaleFormatting(identifier: "en")

    @Test func sequentialArgumentsFollowTheirPredecessor() throws {
        let format = try BoundFormat("%@ and %@, then %1$@ again, %@")
        #expect(format.conversions.map(\.position) == [1, 2, 1, 2])
        #expect(format.render([.string("a"), .string("b")], formatting: english) == "a and b, then a again, b")
    }

    @Test func numbersAreFormattedAndStringsReadAsNumbers() throws {
        let format = try BoundFormat("%u / %d / %@")
        #expect(format.render([.integer(1234), .string("5678"), .integer(9)], formatting: english) == "1,234 / 5,678 / 9")
        #expect(format.render([.integer(1)], formatting: english) == "1 /  / ")
    }

    @Test func textWritesBackWithPositions() throws {
        #expect(try BoundFormat("%u more (50%%) from %@").text == "%1$u more (50%%) from %2$@")
    }

    static let summary = LocalizedEntry.plural(PluralFormat(
        format: "%#@notifications@",
        variables: ["notifications": PluralVariable(valueType: "u", forms: [
            .one: "%u more notification from %@", .other: "%u more notifications from %@",
        ])]))

    @Test(arguments: [(1, "1 more notification from Teja"), (2, "2 more notifications from Teja"), (1001, "1,001 more notifications from Teja")])
    func pluralVariableTakesTheCount(count: Int, text: String) throws {
        let arguments: [FormatArgument] = [.integer(count), .string("Teja")]
        let bound = try Self.summary.bind(arguments: arguments, rules: .cardinal(for: "en"))
        #expect(bound.render(arguments, formatting: english) == text)
    }

    @Test func russianFormsFollowCLDR() throws {
        let entry = LocalizedEntry.plural(PluralFormat(
            format: "Ещё %#@n@",
            variables: ["n": PluralVariable(valueType: "u", forms: [.one: "%u уведомление", .few: "%u уведомления", .many: "%u уведомлений", .other: "%u уведомления"])]))
        let russian = LocaleFormatting(identifier: "ru")
        func render(_ count: Int) throws -> String {
            try entry.bind(arguments: [.integer(count)], rules: .cardinal(for: "ru")).render([.integer(count)], formatting: russian)
        }
        #expect(try render(1) == "Ещё 1 уведомление")
        #expect(try render(3) == "Ещё 3 уведомления")
        #expect(try render(5) == "Ещё 5 уведомлений")
        #expect(try render(21) == "Ещё 21 уведомление")
    }

    @Test func zeroFormIsUsedForZeroEvenWithoutACLDRZero() throws {
        let entry = LocalizedEntry.plural(PluralFormat(
            format: "%#@n@", variables: ["n": PluralVariable(forms: [.zero: "none", .one: "one", .other: "%u"])]))
        #expect(try entry.bind(arguments: [.integer(0)], rules: .cardinal(for: "en")).render([.integer(0)], formatting: english) == "none")
        #expect(try entry.bind(arguments: [.integer(7)], rules: .cardinal(for: "en")).render([.integer(7)], formatting: english) == "7")
    }

    @Test func severalAndNestedVariables() throws {
        let entry = LocalizedEntry.plural(PluralFormat(
            format: "%#@files@ in %#@folders@",
            variables: [
                "files": PluralVariable(valueType: "d", forms: [.one: "%d file", .other: "%d files"]),
                "folders": PluralVariable(valueType: "d", forms: [.one: "one folder", .other: "%d folders%#@note@"]),
                "note": PluralVariable(forms: [.other: "!"], argumentPosition: 2),
            ]))
        let arguments: [FormatArgument] = [.integer(1), .integer(3)]
        #expect(try entry.bind(arguments: arguments, rules: .cardinal(for: "en")).render(arguments, formatting: english) == "1 file in 3 folders!")
    }

    @Test func positionalVariableReordersArguments() throws {
        let entry = LocalizedEntry.plural(PluralFormat(
            format: "%2$@: %1$#@n@", variables: ["n": PluralVariable(valueType: "u", forms: [.one: "%u neue", .other: "%u neue"])]))
        let arguments: [FormatArgument] = [.integer(2), .string("Teja")]
        #expect(try entry.bind(arguments: arguments, rules: .cardinal(for: "de")).render(arguments, formatting: LocaleFormatting(identifier: "de")) == "Teja: 2 neue")
    }

    @Test func undefinedVariableAndMissingOtherAreErrors() {
        let undefined = LocalizedEntry.plural(PluralFormat(format: "%#@x@", variables: [:]))
        #expect(throws: FormatError.self) { try undefined.bind(arguments: [.integer(1)], rules: .cardinal(for: "en")) }
        let noOther = LocalizedEntry.plural(PluralFormat(format: "%#@x@", variables: ["x": PluralVariable(forms: [.one: "one"])]))
        #expect(throws: FormatError.self) { try noOther.bind(arguments: [.integer(5)], rules: .cardinal(for: "en")) }
        let invalidForm = LocalizedEntry.plural(PluralFormat(format: "%#@x@", variables: ["x": PluralVariable(forms: [.other: "%s"])]))
        #expect(throws: FormatError.self) { try invalidForm.bind(arguments: [.integer(5)], rules: .cardinal(for: "en")) }
    }

    @Test func selfReferencingVariablesStop() {
        let loop = LocalizedEntry.plural(PluralFormat(format: "%#@x@", variables: ["x": PluralVariable(forms: [.other: "%#@x@"])]))
        #expect(throws: FormatError.self) { try loop.bind(arguments: [.integer(1)], rules: .cardinal(for: "en")) }
    }

    @Test func listsFollowTheLocale() {
        #expect(english.list(["Kritarth", "Teja", "Michele"]) == "Kritarth, Teja, and Michele")
        #expect(english.list(["Teja"]) == "Teja")
        #expect(english.list([]) == "")
        #expect(LocaleFormatting(identifier: "de").list(["A", "B", "C"]) == "A, B und C")
        #expect(LocaleFormatting(identifier: "ja").list(["A", "B"]) == "A、B")
    }
}

@Suite struct LanguageMatchingTests {
    @Test(arguments: [
        ("pt-PT", ["pt-PT", "pt"]),
        ("pt_pt", ["pt-PT", "pt"]),
        ("de-AT", ["de-AT", "de"]),
        ("zh-TW", ["zh-TW", "zh-Hant-TW", "zh-Hant", "zh"]),
        ("zh-Hans-CN", ["zh-Hans-CN", "zh-Hans", "zh-CN", "zh"]),
        ("zh", ["zh", "zh-Hans"]),
        ("sr-Latn", ["sr-Latn", "sr"]),
        ("EN", ["en"]),
        // CLDR's parentLocales come before dropping subtags.
        ("pt-AO", ["pt-AO", "pt-PT", "pt"]),
        ("pt_mz", ["pt-MZ", "pt-PT", "pt"]),
        ("es-MX", ["es-MX", "es-419", "es"]),
        ("en-AU", ["en-AU", "en-001", "en"]),
        ("en-AT", ["en-AT", "en-150", "en-001", "en"]),
        ("zh-Hant-MO", ["zh-Hant-MO", "zh-Hant-HK", "zh-Hant", "zh-HK", "zh"]),
    ])
    func fallbackChains(tag: String, chain: [String]) {
        #expect(LanguageTag(tag).fallbackChain == chain)
    }

    static let bundle = LocalizationBundle(developmentLanguage: "en", tables: [
        "en": ["HELLO": .text("Hello"), "ONLY_EN": .text("only English")],
        "pt": ["HELLO": .text("Olá")],
        "pt-PT": ["HELLO": .text("Olá de Portugal")],
        "de": ["HELLO": .text("Hallo")],
        "zh-Hant": ["HELLO": .text("哈囉")],
    ])

    @Test(arguments: [
        (["pt-PT"], "Olá de Portugal"),
        (["pt-BR"], "Olá"),
        (["de-AT"], "Hallo"),
        (["zh-TW"], "哈囉"),
        (["fr", "de"], "Hallo"),
        (["ja"], "Hello"),
    ])
    func matchesLikeIOS(languages: [String], text: String) {
        #expect(Self.bundle.entry(forKey: "HELLO", preferredLanguages: languages)?.entry == .text(text))
    }

    @Test func aParentLocaleWinsOverTheDevelopmentLanguage() {
        // An app with pt-PT and pt-BR but no plain pt: a viewer in Angola reads European Portuguese.
        let bundle = LocalizationBundle(developmentLanguage: "en", tables: [
            "en": ["HELLO": .text("Hello")],
            "pt-PT": ["HELLO": .text("Olá de Portugal")],
            "pt-BR": ["HELLO": .text("Olá do Brasil")],
        ])
        #expect(bundle.entry(forKey: "HELLO", preferredLanguages: ["pt-AO"])?.language == "pt-PT")
        #expect(bundle.entry(forKey: "HELLO", preferredLanguages: ["pt-BR"])?.language == "pt-BR")
        #expect(bundle.matchedLanguages(for: ["pt-AO"]) == ["pt-PT", "en"])
    }

    @Test func missingKeysFallBackToTheDevelopmentLanguageThenNil() {
        #expect(Self.bundle.entry(forKey: "ONLY_EN", preferredLanguages: ["de"])?.language == "en")
        #expect(Self.bundle.entry(forKey: "NOWHERE", preferredLanguages: ["de"]) == nil)
        #expect(Self.bundle.matchedLanguages(for: ["pt-PT", "de"]) == ["pt-PT", "pt", "de", "en"])
    }
}
