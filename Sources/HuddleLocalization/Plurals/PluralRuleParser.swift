/// Parses the text of one CLDR plural condition (UTS #35 "Plural rules syntax") into a `PluralCondition`.
///
/// Accepts the current syntax (`i % 10 = 2..4 and v != 0`) and the older words CLDR used before
/// release 24 (`mod`, `is`, `is not`, `in`, `not in`, `within`, `not within`). Samples after `@` are
/// ignored. Runs once per rule set, when the table is first used; O(length of the text).
struct PluralRuleParser {
    /// Why a rule text did not parse: the message and the byte offset it refers to.
    struct SyntaxError: Error, CustomStringConvertible {
        var message: String
        var offset: Int
        var text: String

        var description: String { "\(message) at offset \(offset) in plural rule \"\(text)\"" }
    }

    private enum Token: Equatable {
        case word(String)
        case number(UInt64)
        case equals, notEquals, percent, comma, rangeDots
        case end
    }

    private let text: String
    private var tokens: [(token: Token, offset: Int)] = []
    private var position = 0

    /// Parses `text`; throws `SyntaxError` if it is not a condition.
    static func parse(_ text: String) throws(SyntaxError) -> PluralCondition {
        var parser = PluralRuleParser(text: text)
        try parser.tokenize()
        let condition = try parser.condition()
        guard parser.current == .end else { throw parser.error("expected `and`, `or` or the end") }
        return condition
    }

    private init(text: String) {
        self.text = text
    }

    // MARK: Grammar

    /// condition = and_condition ('or' and_condition)*
    private mutating func condition() throws(SyntaxError) -> PluralCondition {
        var alternatives = [try andCondition()]
        while takeWord("or") {
            alternatives.append(try andCondition())
        }
        return PluralCondition(alternatives: alternatives)
    }

    /// and_condition = relation ('and' relation)*
    private mutating func andCondition() throws(SyntaxError) -> [PluralCondition.Relation] {
        var relations = [try relation()]
        while takeWord("and") {
            relations.append(try relation())
        }
        return relations
    }

    /// relation = expr ('=' | '!=' | 'is' 'not'? | 'not'? 'in' | 'not'? 'within') range_list
    private mutating func relation() throws(SyntaxError) -> PluralCondition.Relation {
        let (operand, modulus) = try expression()
        var isNegated = false
        var isWithin = false
        var singleValueOnly = false
        if take(.equals) {
        } else if take(.notEquals) {
            isNegated = true
        } else if takeWord("is") {
            isNegated = takeWord("not")
            singleValueOnly = true
        } else {
            isNegated = takeWord("not")
            if takeWord("within") {
                isWithin = true
            } else if !takeWord("in") {
                throw error("expected `=`, `!=`, `is`, `in` or `within`")
            }
        }
        let ranges = try rangeList()
        if singleValueOnly, ranges.count != 1 || ranges[0].count != 1 {
            throw error("`is` takes a single value")
        }
        return PluralCondition.Relation(
            operand: operand, modulus: modulus, isWithin: isWithin, isNegated: isNegated, ranges: ranges
        )
    }

    /// expr = operand (('mod' | '%') value)?
    private mutating func expression() throws(SyntaxError) -> (PluralCondition.Operand, UInt64?) {
        guard case .word(let name) = current, let operand = Self.operands[name] else {
            throw error("expected an operand (n, i, v, w, f, t, c or e)")
        }
        advance()
        guard take(.percent) || takeWord("mod") else { return (operand, nil) }
        let divisor = try value()
        guard divisor != 0 else { throw error("modulus 0") }
        return (operand, divisor)
    }

    /// range_list = (range | value) (',' range_list)*; range = value '..' value
    private mutating func rangeList() throws(SyntaxError) -> [ClosedRange<UInt64>] {
        var ranges: [ClosedRange<UInt64>] = []
        repeat {
            let low = try value()
            var high = low
            if take(.rangeDots) {
                high = try value()
                guard low <= high else { throw error("range \(low)..\(high) runs backwards") }
            }
            ranges.append(low...high)
        } while take(.comma)
        return ranges
    }

    private mutating func value() throws(SyntaxError) -> UInt64 {
        guard case .number(let number) = current else { throw error("expected a number") }
        advance()
        return number
    }

    private static let operands: [String: PluralCondition.Operand] = [
        "n": .n, "i": .i, "v": .v, "w": .w, "f": .f, "t": .t, "c": .c, "e": .e,
    ]

    // MARK: Tokens

    private var current: Token { tokens[position].token }

    private mutating func advance() {
        if position < tokens.count - 1 { position += 1 }
    }

    private mutating func take(_ token: Token) -> Bool {
        guard current == token else { return false }
        advance()
        return true
    }

    private mutating func takeWord(_ word: String) -> Bool {
        take(.word(word))
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, offset: tokens[position].offset, text: text)
    }

    /// Splits the text into tokens, stopping at `@` (the samples) or the end.
    private mutating func tokenize() throws(SyntaxError) {
        let bytes = Array(text.utf8)
        var index = 0
        func isLetter(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte | 0x20) }
        func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

        scanning: while index < bytes.count {
            let byte = bytes[index]
            let start = index
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
                continue scanning
            case UInt8(ascii: "@"):
                break scanning
            case UInt8(ascii: "="):
                index += 1
                tokens.append((.equals, start))
            case UInt8(ascii: "!") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "="):
                index += 2
                tokens.append((.notEquals, start))
            case UInt8(ascii: "%"):
                index += 1
                tokens.append((.percent, start))
            case UInt8(ascii: ","):
                index += 1
                tokens.append((.comma, start))
            case UInt8(ascii: ".") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "."):
                index += 2
                tokens.append((.rangeDots, start))
            case _ where isDigit(byte):
                var number: UInt64 = 0
                while index < bytes.count, isDigit(bytes[index]) {
                    let (shifted, overflow1) = number.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(bytes[index] - 0x30))
                    guard !overflow1, !overflow2 else {
                        throw SyntaxError(message: "number too large", offset: start, text: text)
                    }
                    number = sum
                    index += 1
                }
                tokens.append((.number(number), start))
            case _ where isLetter(byte):
                while index < bytes.count, isLetter(bytes[index]) { index += 1 }
                tokens.append((.word(String(decoding: bytes[start..<index], as: UTF8.self).lowercased()), start))
            default:
                // U+2026 HORIZONTAL ELLIPSIS stands for `..` in some older rule texts.
                if bytes[index...].starts(with: [0xE2, 0x80, 0xA6]) {
                    index += 3
                    tokens.append((.rangeDots, start))
                } else {
                    throw SyntaxError(message: "unexpected character", offset: start, text: text)
                }
            }
        }
        tokens.append((.end, index))
    }
}
