import HuddleLocalization
import Testing

/// Formats come from strangers: positions, nesting and expansion are bounded before they are used.
@Suite struct FormatLimitsTests {
    let english = PluralRules.cardinal(for: "en")

    /// A hostile stringsdict: eight variables, each form using the next variable eight times. Bound
    /// naively it expands to 8⁸ pieces (the attack that took 81 s and 2 MB per render).
    static func fanOut(depth: Int = 8, uses: Int = 8) -> PluralFormat {
        var variables: [String: PluralVariable] = [:]
        for level in 0..<depth {
            // Each use names argument 1, so that argument positions do not run out before the expansion does.
            let form = level == depth - 1 ? "x" : String(repeating: "%1$#@v\(level + 1)@", count: uses)
            variables["v\(level)"] = PluralVariable(valueType: "u", forms: [.other: form])
        }
        return PluralFormat(format: "%#@v0@", variables: variables)
    }

    @Test func theHighestPositionIsAccepted() throws {
        let format = try BoundFormat("%32$@")
        #expect(format.conversions.map(\.position) == [32])
    }

    @Test func aVariableAtAnImpossiblePositionIsRefused() {
        let entry = LocalizedEntry.plural(PluralFormat(
            format: "%#@n@", variables: ["n": PluralVariable(valueType: "u", forms: [.other: "%u"], argumentPosition: 1 << 40)]))
        #expect(throws: FormatError.self) { try entry.bind(arguments: [.integer(1)], rules: english) }
    }

    @Test func aFanOutOfVariablesIsRefusedAtUpload() {
        do {
            try Self.fanOut().checkExpansion()
            Issue.record("accepted a variable used eight times in one form")
        } catch {
            // Measured depth first: the deepest repetition is met first.
            #expect(error.description == "conversion \"%#@v7@\" at offset 0: the plural variable v7 is used twice in one text")
        }
    }

    @Test func bindingStopsAtTheExpansionLimit() {
        // The upload check refuses this entry; a stored one from before the check still cannot blow up.
        do {
            _ = try LocalizedEntry.plural(Self.fanOut()).bind(arguments: [.integer(2)], rules: english)
            Issue.record("bound an expansion of 8^8 pieces")
        } catch {
            guard case .shape(let detail) = error.reason else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(detail == "the format expands to more than \(PluralFormat.maximumExpandedLength) characters")
        }
    }

    @Test func aVariableThatUsesItselfIsRefused() {
        let format = PluralFormat(
            format: "%#@a@", variables: [
                "a": PluralVariable(valueType: "u", forms: [.other: "%u and %#@b@"]),
                "b": PluralVariable(valueType: "u", forms: [.one: "one", .other: "%#@a@"]),
            ])
        #expect(throws: FormatError(conversion: "%#@a@", offset: 0, reason: .shape("the plural variable a uses itself"))) {
            try format.checkExpansion()
        }
    }

    @Test func nestingDeeperThanBindingAllowsIsRefused() {
        #expect(throws: FormatError.self) { try Self.fanOut(depth: 10, uses: 1).checkExpansion() }
        #expect(throws: Never.self) { try Self.fanOut(depth: 8, uses: 1).checkExpansion() }
    }

    @Test func aLongChainOfVariablesIsRefusedWithoutRecursingThroughIt() {
        // Found by the format fuzzer: 5,000 variables, each using the next once, overflowed the stack of a
        // walk that followed the whole chain.
        #expect(throws: FormatError.self) { try Self.fanOut(depth: 5_000, uses: 1).checkExpansion() }
    }

    @Test func longFormsThatAddUpPastTheLimitAreRefused() {
        let long = String(repeating: "w", count: 6_000)
        let format = PluralFormat(
            format: "%#@a@ %#@b@ %#@c@", variables: [
                "a": PluralVariable(valueType: "u", forms: [.other: long]),
                "b": PluralVariable(valueType: "u", forms: [.other: long]),
                "c": PluralVariable(valueType: "u", forms: [.other: long]),
            ])
        #expect(throws: FormatError.self) { try format.checkExpansion() }
    }

    @Test func ordinaryEntriesPass() throws {
        let format = PluralFormat(
            format: "%#@more@ from %@", variables: [
                "more": PluralVariable(valueType: "u", forms: [.one: "%u more message", .other: "%u more messages"])
            ])
        try format.checkExpansion()
        let bound = try LocalizedEntry.plural(format).bind(arguments: [.integer(3), .string("Teja")], rules: english)
        #expect(bound.render([.integer(3), .string("Teja")], formatting: LocaleFormatting(identifier: "en")) == "3 more messages from Teja")
    }

    @Test func textBetweenConversionsIsOnePiece() throws {
        // Text runs, across forms too, become one piece between conversions (the binder now gathers them and
        // joins once per conversion, rather than copying the run on every append).
        let bound = try BoundFormat(String(repeating: "%% %u ", count: 30))
        #expect(bound.pieces.count == 61)
        #expect(bound.conversions.count == 30)
    }
}
