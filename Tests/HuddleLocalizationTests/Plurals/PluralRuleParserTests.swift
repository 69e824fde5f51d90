@testable import HuddleLocalization
import Testing

@Suite("PluralRuleParser")
struct PluralRuleParserTests {
    /// Whether `rule` holds for the number written as `number`.
    private func holds(_ rule: String, for number: String) throws -> Bool {
        try PluralRuleParser.parse(rule).matches(PluralOperands(decimal: number))
    }

    @Test("current and legacy syntax", arguments: [
        ("n = 1", "1", true), ("n = 1", "1.0", true), ("n = 1", "1.5", false), ("n != 1", "2", true),
        ("n is 1", "1", true), ("n is not 1", "1", false), ("n is not 1", "3", true),
        ("n in 2..4", "3", true), ("n not in 2..4", "3", false), ("n not in 2..4", "5", true),
        ("n mod 10 in 2..4", "23", true), ("n % 10 = 2..4", "25", false), ("i % 100 = 11..14", "112", true),
        ("n = 0,1,5..7", "6", true), ("n = 0,1,5..7", "4", false),
        ("i = 1 @integer 1 @decimal 1.0", "1", true),
        ("n = 1 or n = 2 and v = 1", "1", true), ("n = 1 or n = 2 and v = 1", "2", false),
        ("n = 1 or n = 2 and v = 1", "2.0", true),
        ("e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5", "2c6", true),
        ("e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5", "2e5", false),
        ("c = 3", "1.5c3", true), ("w = 2 and t = 25", "1.250", true), ("f = 250 and v = 3", "1.250", true),
        ("n = 1 \u{2026} 3", "2", true),
    ])
    func evaluation(rule: String, number: String, expected: Bool) throws {
        #expect(try holds(rule, for: number) == expected)
    }

    @Test("`in` and `=` take integers only, `within` takes the values between", arguments: [
        ("n = 1..2", "1.5", false), ("n within 1..2", "1.5", true), ("n within 1..2", "2.0", true),
        ("n within 1..2", "2.5", false), ("n within 1..2", "0.5", false), ("n not within 1..2", "2.5", true),
        ("n != 1..2", "1.5", true), ("n % 10 = 1", "11.0", true), ("n % 10 = 1", "11.5", false),
        ("n % 10 within 1..2", "11.5", true),
    ])
    func fractions(rule: String, number: String, expected: Bool) throws {
        #expect(try holds(rule, for: number) == expected)
    }

    @Test("malformed rules are refused", arguments: [
        "", "x = 1", "n = ", "n = 3..1", "n % 0 = 1", "n = 1 or", "n # 1", "n 1", "n is 1..2", "n = 1,",
        "n = 99999999999999999999999", "and n = 1", "n = 1 n = 2",
    ])
    func malformed(rule: String) {
        #expect(throws: PluralRuleParser.SyntaxError.self) { try PluralRuleParser.parse(rule) }
    }
}
