import HuddleLocalization
import Testing

@Suite("PluralOperands")
struct PluralOperandsTests {
    /// The operands UTS #35 expects for a number written as text.
    struct Expected: Sendable, CustomTestStringConvertible {
        var text: String
        var n: Double
        var i: Int
        var v: Int
        var w: Int
        var f: Int
        var t: Int
        var c: Int = 0

        var testDescription: String { "\"\(text)\"" }
    }

    @Test("operands of decimal text", arguments: [
        Expected(text: "1.0", n: 1, i: 1, v: 1, w: 0, f: 0, t: 0),
        Expected(text: "1.50", n: 1.5, i: 1, v: 2, w: 1, f: 50, t: 5),
        Expected(text: "0.01", n: 0.01, i: 0, v: 2, w: 2, f: 1, t: 1),
        Expected(text: "123", n: 123, i: 123, v: 0, w: 0, f: 0, t: 0),
        Expected(text: "-2.50", n: 2.5, i: 2, v: 2, w: 1, f: 50, t: 5),
        Expected(text: "+7", n: 7, i: 7, v: 0, w: 0, f: 0, t: 0),
        Expected(text: "007.100", n: 7.1, i: 7, v: 3, w: 1, f: 100, t: 1),
        Expected(text: "-0.0", n: 0, i: 0, v: 1, w: 0, f: 0, t: 0),
        Expected(text: "1c6", n: 1_000_000, i: 1_000_000, v: 0, w: 0, f: 0, t: 0, c: 6),
        Expected(text: "1e6", n: 1_000_000, i: 1_000_000, v: 0, w: 0, f: 0, t: 0, c: 6),
        Expected(text: "1.2e3", n: 1200, i: 1200, v: 0, w: 0, f: 0, t: 0, c: 3),
        Expected(text: "1.2345c3", n: 1234.5, i: 1234, v: 1, w: 1, f: 5, t: 5, c: 3),
        Expected(text: "1.20c1", n: 12, i: 12, v: 1, w: 0, f: 0, t: 0, c: 1),
        Expected(text: "1.0000001c6", n: 1_000_000.1, i: 1_000_000, v: 1, w: 1, f: 1, t: 1, c: 6),
        Expected(text: "0c3", n: 0, i: 0, v: 0, w: 0, f: 0, t: 0, c: 3),
        Expected(text: "18446744073709551615", n: 18446744073709551616.0, i: Int.max, v: 0, w: 0, f: 0, t: 0),
        Expected(text: "0.123456789012345678", n: 0.123456789012345678, i: 0, v: 18, w: 18, f: 123456789012345678, t: 123456789012345678),
    ])
    func decimalOperands(_ expected: Expected) throws {
        let operands = try PluralOperands(decimal: expected.text)
        // `n` is a Double for display; the rules read the exact digits checked below.
        #expect(abs(operands.n - expected.n) <= 1e-12 * max(1, expected.n))
        #expect(operands.i == expected.i)
        #expect(operands.v == expected.v)
        #expect(operands.w == expected.w)
        #expect(operands.f == expected.f)
        #expect(operands.t == expected.t)
        #expect(operands.c == expected.c)
        #expect(operands.e == expected.c)
    }

    @Test("operands of integers use the absolute value", arguments: [0, 1, 21, -21, 1_000_000, Int.max])
    func integerOperands(_ integer: Int) {
        let operands = PluralOperands(integer)
        #expect(operands.i == abs(integer))
        #expect(operands.n == Double(abs(integer)))
        #expect([operands.v, operands.w, operands.f, operands.t, operands.c] == [0, 0, 0, 0, 0])
        #expect(operands == (try? PluralOperands(decimal: String(integer))))
    }

    @Test("Int.min has an exact magnitude for rules, clamped `i`")
    func intMin() {
        let operands = PluralOperands(Int.min)
        #expect(operands.i == Int.max)
        // 9223372036854775808 ends in 8: Russian "many", not the "many" of Int.max's 7 by accident.
        #expect(PluralRules.cardinal(for: "ru").category(for: Int.min) == .many)
        #expect(PluralRules.cardinal(for: "en").category(for: Int.min) == .other)
    }

    @Test("the visible zero is kept: 1 and 1.0 are different operands")
    func visibleZero() throws {
        #expect(try PluralOperands(decimal: "1.0") != PluralOperands(1))
        #expect(try PluralOperands(decimal: "1") == PluralOperands(1))
    }

    @Test("text that is not a decimal number", arguments: [
        "", "-", "+", "1..0", ".5", "5.", "1.2.3", "1e", "1c-3", "1e+3", " 1", "1 ", "1,5", "1_000",
        "abc", "0x10", "--1", "1e6e6", "1.5.c3", "١", "1.", "Infinity", "NaN",
    ])
    func notADecimalNumber(_ text: String) {
        #expect(throws: PluralOperandsError(text: text, reason: .notADecimalNumber)) {
            try PluralOperands(decimal: text)
        }
    }

    @Test("numbers too long for the operands", arguments: [
        "18446744073709551616", "99999999999999999999999", "1e20", "2c19", "1c41", "0e99",
        "0.1234567890123456789", "1.0000000000000000000",
    ])
    func tooManyDigits(_ text: String) {
        #expect(throws: PluralOperandsError(text: text, reason: .tooManyDigits)) {
            try PluralOperands(decimal: text)
        }
    }

    @Test("the error names the text, shortened when long")
    func errorDescription() {
        #expect(PluralOperandsError(text: "1..0", reason: .notADecimalNumber).description
            == #""1..0" is not a decimal number"#)
        let long = String(repeating: "9", count: 500) + "x"
        let description = PluralOperandsError(text: long, reason: .notADecimalNumber).description
        #expect(description == "\"" + String(repeating: "9", count: 40) + "…\" is not a decimal number")
    }
}
