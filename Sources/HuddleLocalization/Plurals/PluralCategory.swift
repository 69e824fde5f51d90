/// A CLDR plural category: the form a word takes for a number in one language.
///
/// `other` is the form every language has; the others exist only where a language's rules use them.
public enum PluralCategory: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case zero, one, two, few, many, other

    /// Categories sort in CLDR's order (zero, one, two, few, many, other).
    public static func < (lhs: PluralCategory, rhs: PluralCategory) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
