/// The conditions of one CLDR plural rule set as rule text, one per category (`other` takes the rest).
///
/// Only `PluralRuleTable` builds these; `PluralRuleCatalog` parses them into `PluralCondition`s.
struct PluralRuleTexts: Sendable {
    var zero: String?
    var one: String?
    var two: String?
    var few: String?
    var many: String?

    init(zero: String? = nil, one: String? = nil, two: String? = nil, few: String? = nil, many: String? = nil) {
        self.zero = zero
        self.one = one
        self.two = two
        self.few = few
        self.many = many
    }

    /// The categories that have a condition, with it, in CLDR order (the order rules are tried in).
    var conditions: [(category: PluralCategory, text: String)] {
        let all: [(PluralCategory, String?)] = [(.zero, zero), (.one, one), (.two, two), (.few, few), (.many, many)]
        return all.compactMap { category, text in text.map { (category, $0) } }
    }
}
