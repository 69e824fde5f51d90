/// A parsed CLDR plural condition: relations joined by `and`, those groups joined by `or`.
///
/// The rule grammar has no parentheses and `and` binds tighter than `or`, so every condition is an `or`
/// of `and`s; keeping it in that flat shape makes evaluation two loops over arrays, with no allocation.
struct PluralCondition: Sendable, Hashable {
    /// An operand of UTS #35; `e` reads the same value as `c`.
    enum Operand: Sendable, Hashable {
        case n, i, v, w, f, t, c, e
    }

    /// One relation, such as `i % 10 = 2..4`, `v != 0` or `n within 0..2`.
    struct Relation: Sendable, Hashable {
        var operand: Operand
        /// The divisor after `%` or `mod`; nil when there is none. Never 0.
        var modulus: UInt64?
        /// `within` also matches non-integers between the bounds; `=` and `in` match integers only.
        var isWithin: Bool
        /// `!=`, `not in`, `not within`, `is not`.
        var isNegated: Bool
        /// The values and ranges after the operator, as closed ranges (a single value `a` is `a...a`).
        var ranges: [ClosedRange<UInt64>]

        /// Whether the relation holds. O(number of ranges).
        func matches(_ operands: PluralOperands) -> Bool {
            var value: UInt64
            // Only `n` can be a non-integer; its fraction survives `%` (1.5 % 10 is 1.5).
            var hasFraction = false
            switch operand {
            case .n:
                value = operands.integerValue
                hasFraction = operands.trimmedFractionValue != 0
            case .i: value = operands.integerValue
            case .v: value = UInt64(operands.fractionDigitCount)
            case .w: value = UInt64(operands.trimmedFractionDigitCount)
            case .f: value = operands.fractionValue
            case .t: value = operands.trimmedFractionValue
            case .c, .e: value = UInt64(operands.exponent)
            }
            if let modulus { value %= modulus }

            let found: Bool
            if isWithin {
                // value + fraction lies in low...high: past the upper bound only by a fraction fails.
                found = ranges.contains { range in
                    range.lowerBound <= value && (value < range.upperBound || (value == range.upperBound && !hasFraction))
                }
            } else {
                found = !hasFraction && ranges.contains { $0.contains(value) }
            }
            return found != isNegated
        }
    }

    /// The `or` of these `and` groups; never empty, nor is any group.
    var alternatives: [[Relation]]

    /// Whether the condition holds. O(number of relations), no allocation.
    func matches(_ operands: PluralOperands) -> Bool {
        alternatives.contains { relations in relations.allSatisfy { $0.matches(operands) } }
    }
}
