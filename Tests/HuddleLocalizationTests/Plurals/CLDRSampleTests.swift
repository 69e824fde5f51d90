import Foundation
import HuddleLocalization
import Testing

/// The samples CLDR lists for one category of one rule set (see `CLDRPluralSamples`).
struct CLDRPluralSample: Sendable, CustomTestStringConvertible {
    enum Kind: Sendable {
        case cardinal, ordinal
    }

    var kind: Kind
    var locale: String
    var category: PluralCategory
    /// CLDR's `@integer` list, such as `0, 2~16, 100, 1c3, …`.
    var integers: String
    /// CLDR's `@decimal` list, such as `0.0~1.5, 10.0, 1.1c6, …`.
    var decimals: String

    var testDescription: String { "\(kind) \(locale) \(category)" }

    /// Every number of both lists as text, ranges written out and the closing "…" left off.
    var numbers: [String] {
        (integers + ", " + decimals).split(separator: ",").flatMap { item -> [String] in
            let item = item.trimmingCharacters(in: .whitespaces)
            if item.isEmpty || item == "…" { return [] }
            let bounds = item.split(separator: "~").map(String.init)
            return bounds.count == 2 ? Self.range(from: bounds[0], to: bounds[1]) : [item]
        }
    }

    /// The numbers from `low` to `high` in steps of their last digit ("0.0~0.3": 0.0, 0.1, 0.2, 0.3).
    private static func range(from low: String, to high: String) -> [String] {
        let fractionDigits = low.split(separator: ".").dropFirst().first?.count ?? 0
        guard let start = Int(low.filter { $0 != "." }), let end = Int(high.filter { $0 != "." }), start <= end else {
            return [low, high]
        }
        return (start...end).map { scaled in
            guard fractionDigits > 0 else { return String(scaled) }
            let digits = String(scaled)
            let padded = String(repeating: "0", count: max(0, fractionDigits + 1 - digits.count)) + digits
            return padded.dropLast(fractionDigits) + "." + padded.suffix(fractionDigits)
        }
    }
}

@Suite("CLDR samples")
struct CLDRSampleTests {
    @Test("every CLDR sample takes its category", arguments: CLDRPluralSamples.all)
    func sample(_ sample: CLDRPluralSample) throws {
        let rules = sample.kind == .cardinal
            ? PluralRules.cardinal(for: sample.locale) : PluralRules.ordinal(for: sample.locale)
        let numbers = sample.numbers
        #expect(!numbers.isEmpty)
        for number in numbers {
            let category = rules.category(for: try PluralOperands(decimal: number))
            #expect(category == sample.category, "\(sample.locale) \(number): \(category)")
        }
    }

    @Test("sample lists expand as CLDR means them")
    func expansion() {
        let sample = CLDRPluralSample(
            kind: .cardinal, locale: "fr", category: .one, integers: "0, 2~4, 1c6, …", decimals: "0.0~0.2, 0.98~1.01"
        )
        #expect(sample.numbers == ["0", "2", "3", "4", "1c6", "0.0", "0.1", "0.2", "0.98", "0.99", "1.00", "1.01"])
    }
}
