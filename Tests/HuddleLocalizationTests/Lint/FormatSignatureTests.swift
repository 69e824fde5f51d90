import HuddleLocalization
import Testing

@Suite struct FormatSignatureTests {
    @Test(arguments: [
        ("%@ sent %d photos", "%1$@ %2$d", 2),
        ("%2$@ hat %1$d Fotos", "%1$d %2$@", 2),
        ("%1$lld of %2$llu", "%1$d %2$d", 2),
        ("100%% done", "no conversions", 0),
        ("%s and %.1f and %c and %p and %n", "%1$s %2$f %3$c %4$p %5$n", 5),
        ("%3$@ only", "%3$@", 3),
    ])
    func plainFormats(format: String, signature: String, count: Int) {
        let result = FormatSignature(format: format)
        #expect(result.description == signature)
        #expect(result.argumentCount == count)
    }

    static func plural(_ format: String, _ variables: [String: PluralVariable]) -> LocalizedEntry {
        .plural(PluralFormat(format: format, variables: variables))
    }

    @Test func aWholeStringVariableHasFormsNumberedFromOne() {
        let entry = Self.plural("%#@messages@", [
            "messages": PluralVariable(valueType: "u", forms: [.one: "%u more message from %@", .other: "%u more messages from %@"]),
        ])
        #expect(FormatSignature(entry).description == "%1$d %2$@")
        #expect(FormatSignature(entry) == FormatSignature(format: "%u more messages from %@"))
    }

    @Test func aFormThatLeavesTheNumberOutKeepsItsArgument() {
        // Hebrew "two" without a number: the %@ is still argument 2.
        let entry = Self.plural("%#@messages@", [
            "messages": PluralVariable(valueType: "u", forms: [.two: "עוד שתי הודעות מ%@", .other: "עוד %u הודעות מ%@"]),
        ])
        #expect(FormatSignature(entry).description == "%1$d %2$@")
    }

    @Test func aVariableInsideTextTakesItsPositionAndItsFormsNumber() {
        // "Ещё %#@n@" with forms "%u сообщения от %@": the form's %u is the variable's own number.
        let entry = Self.plural("Ещё %#@n@", ["n": PluralVariable(valueType: "u", forms: [.one: "%u сообщение от %@", .other: "%u сообщения от %@"])])
        #expect(FormatSignature(entry).description == "%1$d %2$@")
    }

    @Test func twoVariablesReadTheirOwnArguments() {
        let entry = Self.plural("%1$#@files@ in %2$#@folders@", [
            "files": PluralVariable(valueType: "d", forms: [.one: "%d file", .other: "%d files"]),
            "folders": PluralVariable(valueType: "d", forms: [.one: "%d folder", .other: "%d folders"]),
        ])
        #expect(FormatSignature(entry).description == "%1$d %2$d")
    }

    @Test func aFormWithAnotherKindIsSeen() {
        // The other form prints no number, so its %s is the next argument, as binding would read it.
        let entry = Self.plural("%#@n@", ["n": PluralVariable(valueType: "d", forms: [.one: "%d item", .other: "%s items"])])
        #expect(FormatSignature(entry).description == "%1$d %2$s")
        let explicit = Self.plural("%#@n@", ["n": PluralVariable(valueType: "d", forms: [.one: "%1$d item", .other: "%1$s items"])])
        #expect(FormatSignature(explicit).description == "%1$d|%1$s")
    }

    @Test func undefinedVariablesAreSkipped() {
        #expect(FormatSignature(Self.plural("%#@missing@ and %@", [:])).description == "%2$@")
    }
}

@Suite struct PluralSampleTests {
    @Test(arguments: [
        ("ru", [PluralCategory.one: [1, 21, 31], .few: [2, 3, 4], .many: [0, 5, 6]]),
        ("en", [.one: [1], .other: [0, 2, 3]]),
        ("ja", [.other: [0, 1, 2]]),
        ("fr", [.one: [0, 1], .other: [2, 3, 4], .many: [1_000_000, 2_000_000, 10_000_000]]),
        ("cs", [.one: [1], .few: [2, 3, 4], .other: [0, 5, 6]]),
    ])
    func integersOfEachCategory(language: String, expected: [PluralCategory: [Int]]) {
        #expect(PluralRules.cardinal(for: language).integerSamples(limit: 3) == expected)
    }
}
