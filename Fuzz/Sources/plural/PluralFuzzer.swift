import HuddleLocalization

/// Plural operands and rule lookups.
///
/// The input is a locale identifier, a line break, then a decimal number. The number goes through
/// `PluralOperands(decimal:)`; the locale picks cardinal and ordinal rules, and one of CLDR's locales is
/// picked by the input's first byte, so every rule set meets fuzzed operands.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let newline = bytes.firstIndex(of: UInt8(ascii: "\n"))
    let locale = String(decoding: newline.map { bytes[..<$0] } ?? bytes[...], as: UTF8.self)
    let number = String(decoding: newline.map { bytes[($0 + 1)...] } ?? bytes[...], as: UTF8.self)

    var operands: [PluralOperands] = []
    do {
        let parsed = try PluralOperands(decimal: number)
        // Every operand must be readable; these are what rules and forms look at.
        _ = (parsed.n, parsed.i, parsed.v, parsed.w, parsed.f, parsed.t, parsed.c, parsed.e)
        _ = parsed.description
        operands.append(parsed)
    } catch {
        _ = error.description
    }
    if count >= 8 {
        let integer = UnsafeRawPointer(start).loadUnaligned(as: Int.self)
        operands.append(PluralOperands(integer))
    }

    var ruleSets = [PluralRules.cardinal(for: locale), PluralRules.ordinal(for: locale)]
    if let first = bytes.first {
        let known = Known.cardinal
        ruleSets.append(PluralRules.cardinal(for: known[Int(first) % known.count]))
        let ordinals = Known.ordinal
        ruleSets.append(PluralRules.ordinal(for: ordinals[Int(first) % ordinals.count]))
    }
    for rules in ruleSets {
        for operand in operands {
            let category = rules.category(for: operand)
            guard rules.categories.contains(category) else {
                fatalError("\(rules.locale) gave \(category) for \(operand), not one of \(rules.categories)")
            }
        }
        for category in rules.categories { _ = rules.condition(for: category) }
    }
    return 0
}

private enum Known {
    static let cardinal = PluralRules.cardinalLocales
    static let ordinal = PluralRules.ordinalLocales
}
