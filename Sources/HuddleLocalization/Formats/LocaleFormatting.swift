public import Foundation

/// Number and list formatting in one locale, through Foundation (ICU on Linux).
///
/// Lists use the locale's "and" style ("Kritarth, Teja, and Michele" in English, "A, B и C" in Russian);
/// integers the locale's digits and grouping ("1,234", "1.234", "١٬٢٣٤").
public struct LocaleFormatting: Sendable {
    public let locale: Locale

    /// - Parameter identifier: a BCP 47 tag ("de-AT") or ICU identifier ("de_AT").
    public init(identifier: String) {
        self.locale = Locale(identifier: identifier)
    }

    public func integer(_ value: Int) -> String {
        value.formatted(.number.locale(locale))
    }

    /// The items joined the locale's way; order is kept.
    public func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.formatted(.list(type: .and).locale(locale))
        }
    }
}
