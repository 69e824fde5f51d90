/// A number as CLDR plural rules see it: its absolute value split into the operands of UTS #35
/// ("Plural Operand Meanings").
///
/// | operand | meaning | `1` | `1.0` | `1.50` | `0.01` | `1.2c3` |
/// |---|---|---|---|---|---|---|
/// | `n` | absolute value | 1 | 1 | 1.5 | 0.01 | 1200 |
/// | `i` | integer digits | 1 | 1 | 1 | 0 | 1200 |
/// | `v` | visible fraction digits, with trailing zeros | 0 | 1 | 2 | 2 | 0 |
/// | `w` | visible fraction digits, without trailing zeros | 0 | 0 | 1 | 2 | 0 |
/// | `f` | fraction digits as a number, with trailing zeros | 0 | 0 | 50 | 1 | 0 |
/// | `t` | fraction digits as a number, without trailing zeros | 0 | 0 | 5 | 1 | 0 |
/// | `c`, `e` | compact decimal exponent | 0 | 0 | 0 | 0 | 3 |
///
/// The digits are taken from the text as written, never through floating point, so `"1.0"` keeps its
/// visible zero (English says "1.0 points", not "1.0 point").
public struct PluralOperands: Sendable, Hashable {
    /// `i`, exact: the magnitude of `Int.min` does not fit in `Int`.
    let integerValue: UInt64
    /// `f`.
    let fractionValue: UInt64
    /// `t`.
    let trimmedFractionValue: UInt64
    /// `v`.
    let fractionDigitCount: Int
    /// `w`.
    let trimmedFractionDigitCount: Int
    /// `c`.
    let exponent: Int

    /// The most fraction digits a number may show; 10^18 - 1 still fits in `f`.
    static let maximumFractionDigits = 18

    /// The operands of an integer (v, w, f, t and c are 0). O(1), no allocation.
    public init(_ integer: Int) {
        integerValue = UInt64(integer.magnitude)
        fractionValue = 0
        trimmedFractionValue = 0
        fractionDigitCount = 0
        trimmedFractionDigitCount = 0
        exponent = 0
    }

    /// The operands of a decimal number written as text: an optional sign, digits, an optional `.` and
    /// fraction digits, and an optional compact exponent `c` or `e` with its digits ("-2.50", "1c6",
    /// "1.2e3").
    ///
    /// The exponent moves the decimal point right, as in CLDR's samples: "1.2c3" is 1200 with `c` = 3,
    /// and "1.2345c3" is 1234.5 with one visible fraction digit. No spaces, grouping separators, or
    /// forms such as ".5" or "5." are accepted. O(length of `decimal`).
    ///
    /// - Throws: `PluralOperandsError` naming the text when it is not such a number, or when its
    ///   integer part does not fit in 64 bits or it shows more than 18 fraction digits.
    public init(decimal: String) throws(PluralOperandsError) {
        var parser = DecimalText(decimal.utf8)
        guard let parts = parser.parse() else {
            throw PluralOperandsError(text: decimal, reason: .notADecimalNumber)
        }
        guard let operands = PluralOperands(parts) else {
            throw PluralOperandsError(text: decimal, reason: .tooManyDigits)
        }
        self = operands
    }

    /// Builds the operands from digits already split at the decimal point; nil when a part is too long.
    private init?(_ parts: DecimalText.Parts) {
        // Shifting by the exponent moves the first `shift` fraction digits into the integer part, then
        // appends zeros once the fraction digits run out.
        guard parts.exponent <= DecimalText.maximumExponent else { return nil }
        let shift = min(parts.exponent, parts.fraction.count)
        let integerDigits = parts.integer + parts.fraction.prefix(shift)
        let fractionDigits = parts.fraction.dropFirst(shift)
        let appendedZeros = parts.exponent - shift

        guard var integer = Self.value(of: integerDigits) else { return nil }
        for _ in 0..<appendedZeros where integer != 0 {
            let (shifted, overflow) = integer.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            integer = shifted
        }
        guard fractionDigits.count <= Self.maximumFractionDigits,
              let fraction = Self.value(of: fractionDigits)
        else { return nil }

        let trailingZeros = fractionDigits.reversed().prefix { $0 == 0 }.count
        integerValue = integer
        fractionValue = fraction
        fractionDigitCount = fractionDigits.count
        trimmedFractionDigitCount = fractionDigits.count - trailingZeros
        trimmedFractionValue = Self.value(of: fractionDigits.dropLast(trailingZeros)) ?? 0
        exponent = parts.exponent
    }

    /// The number the decimal digits spell, or nil past `UInt64.max`.
    private static func value(of digits: some Sequence<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        for digit in digits {
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }

    /// `n`, the absolute value, as a `Double` for display and quick comparisons (such as `n == 0`).
    ///
    /// Rules never read it: they use the exact digits below.
    public var n: Double {
        var scale = 1.0
        for _ in 0..<fractionDigitCount { scale *= 10 }
        return Double(integerValue) + Double(fractionValue) / scale
    }

    /// `i`, the integer digits of `n`. Clamped to `Int.max` for the one integer beyond it, the
    /// magnitude of `Int.min` (rules use the exact value).
    public var i: Int { Int(clamping: integerValue) }
    /// `v`, the number of visible fraction digits, with trailing zeros.
    public var v: Int { fractionDigitCount }
    /// `w`, the number of visible fraction digits, without trailing zeros.
    public var w: Int { trimmedFractionDigitCount }
    /// `f`, the visible fraction digits as a number, with trailing zeros.
    public var f: Int { Int(fractionValue) }
    /// `t`, the visible fraction digits as a number, without trailing zeros.
    public var t: Int { Int(trimmedFractionValue) }
    /// `c`, the exponent of a compact decimal form ("1.2c3"); 0 otherwise.
    public var c: Int { exponent }
    /// `e`, a synonym of `c` in current CLDR.
    public var e: Int { exponent }
}

extension PluralOperands: CustomStringConvertible {
    /// The operands in the order UTS #35 lists them, e.g. `n=1.5 i=1 v=2 w=1 f=50 t=5 c=0`.
    public var description: String {
        "n=\(n) i=\(integerValue) v=\(v) w=\(w) f=\(fractionValue) t=\(trimmedFractionValue) c=\(c)"
    }
}

/// A strict reader of decimal text: sign, digits, optional fraction, optional compact exponent.
private struct DecimalText {
    /// The digits as values 0...9, split at the decimal point, and the exponent.
    struct Parts {
        var integer: [UInt8] = []
        var fraction: [UInt8] = []
        var exponent = 0
    }

    /// Exponents past this are refused outright, before any zeros are appended: 10^20 already
    /// overflows `i`, and CLDR's compact forms stop at `c` = 15 or so.
    static let maximumExponent = 40

    private let bytes: String.UTF8View
    private var position: String.UTF8View.Index

    init(_ bytes: String.UTF8View) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    /// The parts, or nil unless the whole text is one well-formed number.
    mutating func parse() -> Parts? {
        var parts = Parts()
        // The sign is read and dropped: plural operands are those of the absolute value.
        _ = take("-") || take("+")
        parts.integer = digits()
        guard !parts.integer.isEmpty else { return nil }
        if take(".") {
            parts.fraction = digits()
            guard !parts.fraction.isEmpty else { return nil }
        }
        if take("c") || take("e") || take("C") || take("E") {
            let exponentDigits = digits()
            guard !exponentDigits.isEmpty else { return nil }
            var exponent = 0
            for digit in exponentDigits {
                exponent = exponent * 10 + Int(digit)
                // Stop counting once it is too big to mean anything; the caller refuses it.
                if exponent > Self.maximumExponent { break }
            }
            parts.exponent = exponent
        }
        guard position == bytes.endIndex else { return nil }
        return parts
    }

    private mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard position < bytes.endIndex, bytes[position] == UInt8(ascii: character) else { return false }
        bytes.formIndex(after: &position)
        return true
    }

    private mutating func digits() -> [UInt8] {
        var digits: [UInt8] = []
        while position < bytes.endIndex, case let byte = bytes[position], byte >= 0x30, byte <= 0x39 {
            digits.append(byte - 0x30)
            bytes.formIndex(after: &position)
        }
        return digits
    }
}
