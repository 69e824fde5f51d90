/// The generated rule table, parsed on first use, and the lookup from a locale identifier to its rules.
///
/// Everything here is a `static let`: Swift initializes each once, thread-safely, on first access, so the
/// catalog needs no lock and is never parsed twice.
enum PluralRuleCatalog {
    /// Which of CLDR's two rule families.
    enum Kind: Sendable {
        case cardinal, ordinal
    }

    /// One rule set, parsed: the conditions to try in CLDR order, and the categories they can give.
    struct CompiledRuleSet: Sendable {
        var conditions: [(category: PluralCategory, condition: PluralCondition)]
        var texts: [PluralCategory: String]
        var categories: [PluralCategory]
    }

    /// A table locale: its CLDR spelling and the index of its rule set.
    struct Entry: Sendable {
        var locale: String
        var ruleSet: Int
    }

    /// Every rule set of the table, parsed, in table order.
    static let ruleSets: [CompiledRuleSet] = PluralRuleTable.ruleSets.map(compile)

    /// The lowercased locale identifiers of each kind, for case-insensitive lookup.
    private static let cardinalIndex = lowercasedIndex(PluralRuleTable.cardinal)
    private static let ordinalIndex = lowercasedIndex(PluralRuleTable.ordinal)
    private static let aliases: [String: String] = Dictionary(
        uniqueKeysWithValues: PluralRuleTable.languageAliases.map { ($0.key.lowercased(), $0.value.lowercased()) }
    )
    private static let root = Entry(locale: "root", ruleSet: PluralRuleTable.cardinal["root"] ?? 0)

    /// The table entry for an identifier: exact match, then with subtags dropped from the right, then
    /// through a language alias ("iw" to "he"), else `root`.
    ///
    /// Case-insensitive; `-` and `_` are the same; anything from a `.` or `@` on (POSIX codesets, ICU
    /// keywords) is ignored. Allocation-free for identifiers of up to 15 bytes, which Swift keeps inline;
    /// O(number of subtags) dictionary lookups.
    static func entry(for identifier: String, kind: Kind) -> Entry {
        let index = kind == .cardinal ? cardinalIndex : ordinalIndex
        let key = normalizedKey(identifier)
        let (found, language) = lookUp(key, in: index)
        if let found { return found }
        if let target = aliases[language], let found = lookUp(target, in: index).entry { return found }
        return root
    }

    /// Looks `key` up, then each shorter prefix ending before a `_`; also returns the last key tried
    /// (the bare language), for the alias step.
    private static func lookUp(_ key: String, in index: [String: Entry]) -> (entry: Entry?, language: String) {
        var key = key
        while true {
            if let entry = index[key] { return (entry, key) }
            guard let cut = key.utf8.lastIndex(of: UInt8(ascii: "_")) else { return (nil, key) }
            key = String(key[..<cut])
        }
    }

    /// Lowercases ASCII, turns `-` into `_`, and stops at `.` or `@`.
    private static func normalizedKey(_ identifier: String) -> String {
        let utf8 = identifier.utf8
        let end = utf8.firstIndex { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "@") } ?? utf8.endIndex
        let length = utf8.distance(from: utf8.startIndex, to: end)
        return String(unsafeUninitializedCapacity: length) { buffer in
            for (offset, byte) in utf8[..<end].enumerated() {
                buffer[offset] = switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte | 0x20
                case UInt8(ascii: "-"): UInt8(ascii: "_")
                default: byte
                }
            }
            return length
        }
    }

    private static func lowercasedIndex(_ table: [String: Int]) -> [String: Entry] {
        Dictionary(uniqueKeysWithValues: table.map { ($0.key.lowercased(), Entry(locale: $0.key, ruleSet: $0.value)) })
    }

    /// Parses one rule set of the table.
    ///
    /// The table is generated and every set is parsed by the tests, so a failure here is a defect of the
    /// generator; it stops debug builds and leaves the category unreachable in release builds.
    private static func compile(_ texts: PluralRuleTexts) -> CompiledRuleSet {
        var conditions: [(category: PluralCategory, condition: PluralCondition)] = []
        var byCategory: [PluralCategory: String] = [:]
        for (category, text) in texts.conditions {
            byCategory[category] = text
            do {
                conditions.append((category, try PluralRuleParser.parse(text)))
            } catch {
                assertionFailure("PluralRuleTable: \(error)")
            }
        }
        return CompiledRuleSet(
            conditions: conditions,
            texts: byCategory,
            categories: conditions.map(\.category) + [.other]
        )
    }
}
