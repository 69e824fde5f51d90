/// Parses JSON text (RFC 8259) into a ``JSONValue``, reporting the line and column of the first problem.
///
/// Duplicate object keys are refused: two values for `thread-id` leave no right answer, so the sender hears
/// about it instead of Huddle picking one silently.
public struct JSONParser {
    /// The deepest nesting accepted, so a hostile document cannot exhaust the stack.
    public static let maximumDepth = 128
    /// The most members one object may have. Nothing Huddle reads needs more, and lookups in a
    /// ``JSONObject`` are linear.
    public static let maximumObjectMembers = 10_000
    /// The largest document accepted. Request bodies have smaller limits of their own; this bounds files.
    public static let maximumSize = 64 << 20
    /// Up to this many members, a new key is checked against the members before it instead of a hash set.
    static let membersComparedDirectly = 16

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses a whole document; anything but whitespace after the value is an error.
    /// - Throws: ``JSONParseError`` with the line and column of the first problem, including a document
    ///   over ``maximumSize``, nested deeper than ``maximumDepth`` or with an object of more than
    ///   ``maximumObjectMembers`` members.
    /// - Complexity: O(n) in the length of the text; line and column are counted only for an error.
    public static func parse(_ bytes: some Sequence<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes))
        guard parser.bytes.count <= maximumSize else {
            throw JSONParseError(message: "the document is \(parser.bytes.count) bytes, more than the \(maximumSize) allowed", line: 1, column: 1)
        }
        // A UTF-8 byte order mark is tolerated: editors on other systems write one.
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < parser.bytes.count {
            throw parser.error("unexpected text after the end of the JSON value")
        }
        return value
    }

    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(text.utf8)
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input: the JSON is truncated") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character \(describe(bytes[index])), expected a JSON value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        // The duplicate check compares with the members so far while there are few (a payload's objects hold a
        // handful, and hashing each key costs more than that), then hashes: an object of many keys must not cost
        // their square.
        var keys: Set<String> = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject(members))
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input inside an object: the JSON is truncated") }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(describe(bytes[index]))")
            }
            let keyStart = index
            let key = try parseString()
            if members.count < Self.membersComparedDirectly {
                guard !members.contains(where: { $0.key == key }) else { throw error("duplicate key \"\(key)\" in one object", at: keyStart) }
            } else {
                if keys.isEmpty { keys = Set(members.map(\.key)) }
                guard keys.insert(key).inserted else { throw error("duplicate key \"\(key)\" in one object", at: keyStart) }
            }
            guard members.count < Self.maximumObjectMembers else {
                throw error("an object has more than \(Self.maximumObjectMembers) members", at: keyStart)
            }
            skipWhitespace()
            guard peek() == UInt8(ascii: ":") else { throw error("expected ':' after the member name \"\(key)\"") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard let next = peek() else { throw error("unexpected end of input inside an object: the JSON is truncated") }
            index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else {
                index -= 1
                throw error("expected ',' or '}' after a member, found \(describe(next))")
            }
        }
        depth -= 1
        return .object(JSONObject(members))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard let next = peek() else { throw error("unexpected end of input inside an array: the JSON is truncated") }
            index += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else {
                index -= 1
                throw error("expected ',' or ']' after an array element, found \(describe(next))")
            }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw error("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        var utf8: [UInt8] = []
        var segmentStart = index
        while true {
            guard index < bytes.count else { throw error("unexpected end of input inside a string: the JSON is truncated") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                if utf8.isEmpty {
                    let string = try decodeUTF8(bytes[segmentStart..<index])
                    index += 1
                    return string
                }
                utf8.append(contentsOf: bytes[segmentStart..<index])
                index += 1
                return try decodeUTF8(utf8[...])
            case UInt8(ascii: "\\"):
                utf8.append(contentsOf: bytes[segmentStart..<index])
                try parseEscape(into: &utf8)
                segmentStart = index
            case 0..<0x20:
                throw error("control character \(describe(byte)) inside a string must be escaped")
            default:
                index += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw error("unexpected end of input inside a string: the JSON is truncated") }
        let escaped = bytes[index]
        index += 1
        switch escaped {
        case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHexQuad()
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("unpaired UTF-16 surrogate in a \\u escape")
                }
                index += 2
                let low = try parseHexQuad()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired UTF-16 surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired UTF-16 surrogate in a \\u escape")
            }
            guard let unicodeScalar = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
            utf8.append(contentsOf: Array(String(Character(unicodeScalar)).utf8))
        default:
            index -= 2  // point at the backslash
            throw error("invalid escape \\\(describeRaw(escaped)) in a string")
        }
    }

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input inside a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func decodeUTF8(_ slice: ArraySlice<UInt8>) throws(JSONParseError) -> String {
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw error("a string is not valid UTF-8")
        }
        return string
    }

    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw error("expected a digit in a number") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw error("a number must not have leading zeros") }
        } else {
            skipDigits()
        }
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let next = peek(), isDigit(next) else { throw error("expected a digit after the decimal point") }
            skipDigits()
        }
        if let next = peek(), next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw error("expected a digit in the exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw error("the number \(text) is out of range") }
        return .double(double)
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.withUTF8Buffer { Array($0) }
        guard index + expected.count <= bytes.count else {
            throw error("unexpected end of input: the JSON is truncated")
        }
        guard bytes[index..<index + expected.count].elementsEqual(expected) else {
            throw error("unexpected character \(describe(bytes[index])), expected a JSON value")
        }
        index += expected.count
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// An error at `position` (the current index by default). Its line and column are counted here, once:
    /// counting them as the parse goes would cost a scan from the start for every key.
    private func error(_ message: String, at position: Int? = nil) -> JSONParseError {
        let end = min(position ?? index, bytes.count)
        let prefix = bytes[..<end]
        let line = prefix.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let lineStart = prefix.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        // Columns count characters, not bytes, so a caret lines up under non-ASCII text.
        let column = String(decoding: bytes[lineStart..<end], as: UTF8.self).count + 1
        return JSONParseError(message: message, line: line, column: column)
    }

    private func describe(_ byte: UInt8) -> String {
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    private func describeRaw(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : "0x" + String(byte, radix: 16)
    }
}

/// Text that is not valid JSON: what is wrong and where (1-based line and column).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public var description: String { "line \(line), column \(column): \(message)" }
}
