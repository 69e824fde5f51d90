/// One localized string of a table: plain text, or a format whose words follow plural rules.
public enum LocalizedEntry: Sendable, Hashable {
    /// A `.strings` value or an `.xcstrings` string unit.
    case text(String)
    /// A `.stringsdict` entry or an `.xcstrings` plural variation.
    case plural(PluralFormat)
}

/// A format with stringsdict variables (`%#@name@`), each replaced by the form its number calls for.
///
/// `.stringsdict` files spell this as `NSStringLocalizedFormatKey` plus one dictionary per variable;
/// String Catalogs as `variations.plural` (a single variable that is the whole string) or `substitutions`.
public struct PluralFormat: Sendable, Hashable {
    /// The format with `%#@name@` variables, e.g. `%#@notifications@`.
    public var format: String
    public var variables: [String: PluralVariable]

    public init(format: String, variables: [String: PluralVariable]) {
        self.format = format
        self.variables = variables
    }
}

/// The forms of one plural variable.
public struct PluralVariable: Sendable, Hashable {
    /// The conversion letter the forms use for the number (`NSStringFormatValueTypeKey`, e.g. `u`, `d`).
    public var valueType: String?
    /// The forms by category; `other` is required, `zero` is used for 0 even where CLDR has no zero.
    public var forms: [PluralCategory: String]
    /// The argument position the number comes from, when a catalog gives it (`argNum` in String Catalogs).
    public var argumentPosition: Int?

    public init(valueType: String? = nil, forms: [PluralCategory: String], argumentPosition: Int? = nil) {
        self.valueType = valueType
        self.forms = forms
        self.argumentPosition = argumentPosition
    }

    /// The form for a number under `rules`: the explicit `zero` form for 0, else the CLDR category's form,
    /// else `other`.
    public func form(for operands: PluralOperands, rules: PluralRules) -> String? {
        if operands.isZero, let zero = forms[.zero] { return zero }
        return forms[rules.category(for: operands)] ?? forms[.other]
    }
}

extension PluralOperands {
    /// True for 0 written any way ("0", "0.0"): the stringsdict `zero` key applies to all of them.
    var isZero: Bool { n == 0 }
}
