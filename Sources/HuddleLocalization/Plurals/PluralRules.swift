// TEMPORARY shim until the generated CLDR tables land: English-like rules only.
public struct PluralOperands: Sendable, Hashable {
    public var n: Double
    public var i: Int
    public var v: Int
    public init(_ integer: Int) { n = Double(abs(integer)); i = abs(integer); v = 0 }
    public init(decimal: String) throws(PluralOperandsError) {
        guard let value = Double(decimal) else { throw PluralOperandsError(text: decimal) }
        n = abs(value); i = Int(abs(value))
        v = decimal.split(separator: ".").dropFirst().first?.count ?? 0
    }
}
public struct PluralOperandsError: Error, CustomStringConvertible, Sendable {
    public var text: String
    public var description: String { "\"\(text)\" is not a decimal number" }
}
public struct PluralRules: Sendable {
    public var locale: String
    public static func cardinal(for locale: String) -> PluralRules { PluralRules(locale: locale) }
    public var categories: [PluralCategory] { [.one, .other] }
    public func category(for integer: Int) -> PluralCategory { category(for: PluralOperands(integer)) }
    public func category(for operands: PluralOperands) -> PluralCategory { operands.i == 1 && operands.v == 0 ? .one : .other }
}
