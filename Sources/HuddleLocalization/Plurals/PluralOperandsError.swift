/// A number given as text that plural rules cannot use.
public struct PluralOperandsError: Error, CustomStringConvertible, Sendable, Hashable {
    /// Why the text was refused.
    public enum Reason: Sendable, Hashable {
        /// Not of the form `-12.50`, `1.2c3` or `1e6`.
        case notADecimalNumber
        /// A well-formed number whose integer part does not fit in 64 bits, or with more than 18
        /// fraction digits; no real count needs either.
        case tooManyDigits
    }

    /// The text as given.
    public let text: String
    public let reason: Reason

    public init(text: String, reason: Reason) {
        self.text = text
        self.reason = reason
    }

    /// Names the text, cut to its first 40 characters: it may come from a payload of any size.
    public var description: String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return switch reason {
        case .notADecimalNumber:
            "\"\(shown)\" is not a decimal number"
        case .tooManyDigits:
            "\"\(shown)\" has too many digits for plural rules (at most 18446744073709551615 and 18 fraction digits)"
        }
    }
}
