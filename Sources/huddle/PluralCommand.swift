import ArgumentParser
import HuddleLocalization

struct PluralCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plural",
        abstract: "Print the CLDR plural category of numbers in a language.",
        discussion: """
            One line per number: NUMBER CATEGORY. Numbers may be decimals as written ("1.0" has one visible \
            fraction digit and is not "1") or compact ("1c6"). With --rules, print the language's rules instead. \
            --version names the CLDR release the rules come from.
            """,
        version: "huddle \(Version.description), plural rules of CLDR \(PluralRules.cldrVersion)"
    )

    @Argument(help: "A language tag, e.g. ru, pt-PT, ar.")
    var locale: String

    @Argument(help: "Numbers to classify.")
    var numbers: [String] = []

    @Flag(help: "Use the ordinal rules (1st, 2nd, 3rd) instead of the cardinal ones.")
    var ordinal = false

    @Flag(help: "Print the rule of each category the language uses.")
    var rules = false

    func validate() throws {
        if numbers.isEmpty && !rules {
            throw ValidationError("Give at least one number, or --rules.")
        }
    }

    func run() throws {
        let pluralRules = ordinal ? PluralRules.ordinal(for: locale) : PluralRules.cardinal(for: locale)
        if rules {
            print("# CLDR \(PluralRules.cldrVersion) \(ordinal ? "ordinal" : "cardinal") rules for \(pluralRules.locale)")
            for category in pluralRules.categories {
                print("\(category.rawValue): \(pluralRules.condition(for: category) ?? "(everything else)")")
            }
        }
        for number in numbers {
            do {
                print("\(number) \(pluralRules.category(for: try PluralOperands(decimal: number)).rawValue)")
            } catch {
                throw ValidationError("\(error)")
            }
        }
    }
}
