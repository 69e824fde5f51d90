/// A strict JSON (RFC 8259) reader producing ``JSONNode``s.
enum JSONNodeReader {
    /// Deeper nesting is refused rather than risking the stack; String Catalogs are about ten levels deep.
    static let maximumDepth = CatalogLimits.maximumDepth

    static func read(scalars: [Unicode.Scalar], file: String) throws(CatalogError) -> JSONNode {
        var parser = JSONParser(cursor: ScalarCursor(scalars), file: file)
        return try parser.parseDocument()
    }
}

private struct JSONParser {
    var cursor: ScalarCursor
    let file: String
    /// Values read so far, held to ``CatalogLimits/maximumEntries``.
    private var valueCount = 0

    init(cursor: ScalarCursor, file: String) {
        self.cursor = cursor
        self.file = file
    }

    mutating func parseDocument() throws(CatalogError) -> JSONNode {
        skipWhitespace()
        let node = try parseValue(depth: 0)
        skipWhitespace()
        guard cursor.isAtEnd else { throw error("expected the end of the JSON text, found \(describeCurrent())") }
        return node
    }

    private mutating func parseValue(depth: Int) throws(CatalogError) -> JSONNode {
        let start = cursor.location
        guard depth < JSONNodeReader.maximumDepth else {
            throw CatalogLimits.nestedTooDeeply(file: file, line: start.line, column: start.column, "JSON values")
        }
        valueCount += 1
        guard valueCount <= CatalogLimits.maximumEntries else {
            throw CatalogLimits.tooManyEntries(file: file, line: start.line, column: start.column)
        }
        guard let first = cursor.current else { throw error("expected a JSON value, found the end of the file") }
        let value: JSONNode.Value
        switch first {
        case "{":
            cursor.advance()
            var members: [(key: String, value: JSONNode)] = []
            skipWhitespace()
            if !cursor.skip("}") {
                while true {
                    skipWhitespace()
                    guard cursor.current == "\"" else {
                        throw error("expected a quoted member name, found \(describeCurrent())")
                    }
                    let key = try parseString()
                    skipWhitespace()
                    guard cursor.skip(":") else { throw error("expected ':' after the member name \"\(key)\"") }
                    skipWhitespace()
                    members.append((key, try parseValue(depth: depth + 1)))
                    skipWhitespace()
                    if cursor.skip("}") { break }
                    guard cursor.skip(",") else {
                        throw error("expected ',' or '}' after the value of \"\(key)\", found \(describeCurrent())")
                    }
                }
            }
            value = .object(members)
        case "[":
            cursor.advance()
            var items: [JSONNode] = []
            skipWhitespace()
            if !cursor.skip("]") {
                while true {
                    skipWhitespace()
                    items.append(try parseValue(depth: depth + 1))
                    skipWhitespace()
                    if cursor.skip("]") { break }
                    guard cursor.skip(",") else { throw error("expected ',' or ']' in the array, found \(describeCurrent())") }
                }
            }
            value = .array(items)
        case "\"":
            value = .string(try parseString())
        case "t" where cursor.skip("true"):
            value = .bool(true)
        case "f" where cursor.skip("false"):
            value = .bool(false)
        case "n" where cursor.skip("null"):
            value = .null
        case "-", "0"..."9":
            value = .number(try parseNumber())
        default:
            throw error("expected a JSON value, found \(describeCurrent())")
        }
        return JSONNode(value: value, line: start.line, column: start.column)
    }

    private mutating func parseString() throws(CatalogError) -> String {
        let start = cursor.location
        cursor.advance()  // "
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = cursor.current else {
                throw CatalogError(file: file, line: start.line, column: start.column, message: "the string starting here is not closed")
            }
            if scalar.value < 0x20 {
                throw error("control characters must be escaped in JSON strings (write \\n for a line break)")
            }
            cursor.advance()
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                text.append(try parseEscape())
            default:
                text.append(scalar)
            }
        }
    }

    private mutating func parseEscape() throws(CatalogError) -> Unicode.Scalar {
        guard let letter = cursor.current else { throw error("the string is not closed") }
        cursor.advance()
        switch letter {
        case "\"": return "\""
        case "\\": return "\\"
        case "/": return "/"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "u":
            let unit = try parseHexUnit()
            if UTF16.isLeadSurrogate(unit), cursor.starts(with: "\\u") {
                cursor.advance(by: 2)
                let trail = try parseHexUnit()
                guard UTF16.isTrailSurrogate(trail) else { throw error("\\u escape: a lone UTF-16 surrogate") }
                let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00)
                if let scalar = Unicode.Scalar(value) { return scalar }
            }
            guard let scalar = Unicode.Scalar(unit) else { throw error("\\u escape: a lone UTF-16 surrogate") }
            return scalar
        default:
            throw error("\\\(letter) is not a JSON escape")
        }
    }

    private mutating func parseHexUnit() throws(CatalogError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let scalar = cursor.current, let digit = UInt16(String(scalar), radix: 16) else {
                throw error("expected four hex digits after \\u")
            }
            value = value << 4 | digit
            cursor.advance()
        }
        return value
    }

    /// A number as written, checked against JSON's grammar (no leading zeros, digits after `.` and `e`).
    private mutating func parseNumber() throws(CatalogError) -> String {
        let start = cursor.location
        var text = ""
        if cursor.current == "-" { appendCurrent(to: &text) }
        let firstDigit = cursor.current
        let integerDigits = appendDigits(to: &text)
        guard integerDigits > 0, !(firstDigit == "0" && integerDigits > 1) else { throw invalidNumber(text, at: start) }
        if cursor.current == "." {
            appendCurrent(to: &text)
            guard appendDigits(to: &text) > 0 else { throw invalidNumber(text, at: start) }
        }
        if cursor.current == "e" || cursor.current == "E" {
            appendCurrent(to: &text)
            if cursor.current == "+" || cursor.current == "-" { appendCurrent(to: &text) }
            guard appendDigits(to: &text) > 0 else { throw invalidNumber(text, at: start) }
        }
        return text
    }

    private func invalidNumber(_ text: String, at start: ScalarCursor.Location) -> CatalogError {
        CatalogError(file: file, line: start.line, column: start.column, message: "invalid JSON: invalid number \(text)")
    }

    private mutating func appendCurrent(to text: inout String) {
        if let scalar = cursor.current { text.unicodeScalars.append(scalar) }
        cursor.advance()
    }

    /// Appends the decimal digits at the cursor; returns how many.
    private mutating func appendDigits(to text: inout String) -> Int {
        var count = 0
        while let scalar = cursor.current, ("0"..."9").contains(scalar) {
            appendCurrent(to: &text)
            count += 1
        }
        return count
    }

    private mutating func skipWhitespace() {
        while let scalar = cursor.current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            cursor.advance()
        }
    }

    private func describeCurrent() -> String {
        guard let scalar = cursor.current else { return "the end of the file" }
        return scalar.isWhitespace ? "whitespace" : "'\(scalar)'"
    }

    private func error(_ message: String) -> CatalogError {
        CatalogError(file: file, line: cursor.line, column: cursor.column, message: "invalid JSON: \(message)")
    }
}
