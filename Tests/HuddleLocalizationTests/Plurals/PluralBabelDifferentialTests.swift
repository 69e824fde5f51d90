import Foundation
import HuddleLocalization
import Testing

/// Compares every category we compute with Babel's (PyPI `babel`, the generator's source), run as a
/// `python3` subprocess: same numbers, same locales, categories must agree one for one.
///
/// Babel evaluates the rules with its own code, so this checks our parser and evaluator, the table's
/// locale mapping, and that the committed table matches the Babel installed. It fails, not skips, when
/// python3 or Babel is missing: CI installs `babel==2.19.0` before `swift test`.
@Suite("Differential against Babel")
struct PluralBabelDifferentialTests {
    /// 0…130, powers of ten, and decimals with and without visible trailing zeros.
    static let numbers: [String] = (0...130).map(String.init)
        + ["200", "1000", "10000", "100000", "1000000"]
        + ["0.0", "1.0", "1.5", "2.50", "0.1", "1.25"]

    /// Prints Babel's categories as JSON for every locale that has its own rules in Babel's data
    /// (languages, and regional or script locales such as pt_PT and zh_Hant), and every locale whose
    /// CLDR parent is not its truncated identifier (pt_AO takes pt_PT's rules), cardinal and ordinal.
    /// Numbers with a "." become `decimal.Decimal`, so "2.50" keeps its visible digits.
    static let script = #"""
        import json, sys
        from decimal import Decimal
        try:
            import babel
            from babel import Locale, localedata
            from babel.core import get_global
        except ImportError as error:
            sys.exit(f"babel is not installed ({error}): pip install babel==2.19.0")

        numbers = [Decimal(text) if "." in text else int(text) for text in sys.argv[1:]]
        report = {"babel": babel.__version__, "cldr": str(get_global("cldr")["version"]),
                  "cardinal": {}, "ordinal": {}}
        from babel.core import _global_data
        parents = _global_data["parent_exceptions"]
        locales = sorted(localedata.locale_identifiers())
        own = {locale: localedata.load(locale, merge_inherited=False) for locale in locales}
        # Babel caches a locale's data under its name whether or not it was merged: forget the unmerged
        # copies, or a locale without rules of its own would not inherit its parent's.
        localedata._cache.clear()
        # A child CLDR names in parentLocales but Babel ships no data for (pt_FR) takes its parent's rules.
        for locale in sorted(set(parents) - set(locales)):
            parsed = Locale.parse(parents[locale])
            report["cardinal"][locale] = [parsed.plural_form(number) for number in numbers]
            report["ordinal"][locale] = [parsed.ordinal_form(number) for number in numbers]
        for locale in locales:
            data = own[locale]
            parsed = Locale.parse(locale)
            if "plural_form" in data or locale in parents:
                report["cardinal"][locale] = [parsed.plural_form(number) for number in numbers]
            if "ordinal_form" in data or locale in parents:
                report["ordinal"][locale] = [parsed.ordinal_form(number) for number in numbers]
        json.dump(report, sys.stdout)
        """#

    struct BabelReport: Decodable {
        var babel: String
        var cldr: String
        var cardinal: [String: [String]]
        var ordinal: [String: [String]]
    }

    struct ScriptFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Babel's answers, computed once for both tests.
    static let babelReport: Result<BabelReport, ScriptFailure> = runBabel()

    private static func runBabel() -> Result<BabelReport, ScriptFailure> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + numbers
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            return .failure(ScriptFailure(description: "cannot start python3 through /usr/bin/env: \(error)"))
        }
        // Read before waiting, so a full pipe cannot block the script.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(ScriptFailure(description: "python3 exited with \(process.terminationStatus): \(message)"))
        }
        do {
            return .success(try JSONDecoder().decode(BabelReport.self, from: data))
        } catch {
            return .failure(ScriptFailure(description: "unreadable output from the Babel script: \(error)"))
        }
    }

    /// Compares one family; returns the number of (locale, number) pairs compared.
    private func compare(
        _ babel: [String: [String]], numbers: [String], rules: (String) -> PluralRules
    ) throws -> (compared: Int, disagreements: [String]) {
        let operands = try numbers.map { text throws(PluralOperandsError) in try PluralOperands(decimal: text) }
        var compared = 0
        var disagreements: [String] = []
        for (locale, categories) in babel.sorted(by: { $0.key < $1.key }) {
            try #require(categories.count == numbers.count)
            let ours = rules(locale)
            for (index, theirs) in categories.enumerated() {
                let category = ours.category(for: operands[index]).rawValue
                compared += 1
                if category != theirs {
                    disagreements.append(
                        "\(locale) (ours from \(ours.locale)) \(numbers[index]): ours \(category), Babel \(theirs)"
                    )
                }
            }
        }
        return (compared, disagreements)
    }

    /// One issue listing the first 50 disagreements, so a broken evaluator does not flood the log.
    private func recordDisagreements(_ disagreements: [String], of compared: Int) {
        guard !disagreements.isEmpty else { return }
        let listed = disagreements.prefix(50).joined(separator: "\n")
        Issue.record("\(disagreements.count) of \(compared) (locale, number) pairs disagree with Babel:\n\(listed)")
    }

    @Test("cardinal categories agree with Babel for every locale and number")
    func cardinalAgreesWithBabel() throws {
        let report = try Self.babelReport.get()
        #expect(report.cldr == PluralRules.cldrVersion, "Babel \(report.babel) has CLDR \(report.cldr); regenerate the table")
        #expect(report.cardinal.count > 200)
        // Every locale of the table is one Babel has rules for: the table is not stale.
        #expect(Set(PluralRules.cardinalLocales).subtracting(report.cardinal.keys).isEmpty)

        let (compared, disagreements) = try compare(report.cardinal, numbers: Self.numbers) {
            PluralRules.cardinal(for: $0)
        }
        #expect(compared == report.cardinal.count * Self.numbers.count)
        recordDisagreements(disagreements, of: compared)
    }

    @Test("ordinal categories agree with Babel for every locale and integer")
    func ordinalAgreesWithBabel() throws {
        let report = try Self.babelReport.get()
        #expect(report.ordinal.count > 100)
        #expect(Set(PluralRules.ordinalLocales).subtracting(report.ordinal.keys).isEmpty)

        // Ordinals rank whole things; the decimals mean nothing there.
        let integerCount = Self.numbers.prefix { !$0.contains(".") }.count
        let integers = report.ordinal.mapValues { Array($0.prefix(integerCount)) }
        let (compared, disagreements) = try compare(integers, numbers: Array(Self.numbers.prefix(integerCount))) {
            PluralRules.ordinal(for: $0)
        }
        #expect(compared == report.ordinal.count * integerCount)
        recordDisagreements(disagreements, of: compared)
    }
}
