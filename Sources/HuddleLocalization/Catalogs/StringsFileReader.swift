public import Foundation

/// Reads `.strings` files: `"key" = "value";` pairs, as Xcode projects and app bundles hold them.
///
/// Accepted, as Apple's property list parser accepts them:
/// - quoted strings (double or single quotes) and unquoted ones made of `A-Z a-z 0-9 _ . - $ : / +`;
/// - `/* */` and `//` comments anywhere between tokens;
/// - escapes `\"` `\'` `\\` `\n` `\t` `\r` `\a` `\b` `\f` `\v`, `\U` or `\u` with up to four hex digits (two of
///   them for a UTF-16 surrogate pair), and octal `\101` (read as Latin-1, where Apple reads NeXTSTEP
///   characters above 127); any other escaped character stands for itself;
/// - a pair without a value, `"key";`, whose value is the key;
/// - the whole file wrapped in `{ }` (an old-style property list dictionary);
/// - UTF-8 with or without a byte order mark, UTF-16 with a byte order mark, and UTF-16 without one when
///   it is recognisable (see ``CatalogTextDecoder``);
/// - XML and binary property lists of strings, which is how compiled apps ship `.strings` files.
///
/// A key defined twice keeps its last value, as on Apple platforms.
public struct StringsFileReader: Sendable {
    public init() {}

    /// The entries of one file, all ``LocalizedEntry/text(_:)``.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name errors use, e.g. `de.lproj/Localizable.strings`.
    /// - Throws: ``CatalogError`` with the line and column of the first problem and what was expected there,
    ///   or naming the limit of ``CatalogLimits`` the file is past.
    /// - Complexity: O(n) in the size of the file.
    public func read(_ data: Data, file: String) throws(CatalogError) -> [String: LocalizedEntry] {
        try readTable(data, file: file).entries.mapValues(LocalizedEntry.text)
    }

    /// Reads text that is already decoded, such as a string literal in a test or a paste in a form.
    public func read(text: String, file: String) throws(CatalogError) -> [String: LocalizedEntry] {
        try CatalogLimits.checkSize(text.utf8.count, file: file)
        return try readTable(scalars: Array(text.unicodeScalars), file: file).entries.mapValues(LocalizedEntry.text)
    }

    /// The entries with their repeated keys, for the loader's warnings.
    func readTable(_ data: Data, file: String) throws(CatalogError) -> StringsTable {
        if PropertyListNode.isBinaryPropertyList(data) {
            return try Self.table(from: PropertyListNode.readBinary(data, file: file), file: file)
        }
        return try readTable(scalars: CatalogTextDecoder.decode(data, file: file), file: file)
    }

    private func readTable(scalars: [Unicode.Scalar], file: String) throws(CatalogError) -> StringsTable {
        if PropertyListXMLReader.looksLikeXML(scalars) {
            let root = try PropertyListXMLReader.read(scalars: scalars, file: file)
            return try Self.table(from: root, file: file)
        }
        var parser = StringsParser(cursor: ScalarCursor(scalars), file: file)
        return try parser.parseFile()
    }

    /// The strings of a property list that is a dictionary of strings.
    private static func table(from root: PropertyListNode, file: String) throws(CatalogError) -> StringsTable {
        guard case .dictionary(let members) = root.value else {
            throw CatalogError(
                file: file, line: root.line, column: root.column,
                message: "expected a dictionary of strings, found \(root.value.kindDescription)")
        }
        var table = StringsTable()
        for member in members {
            guard case .string(let value) = member.value.value else {
                throw CatalogError(
                    file: file, line: member.value.line, column: member.value.column, keyPath: member.key,
                    message: "expected a string, found \(member.value.value.kindDescription)")
            }
            table.add(key: member.key, value: value, line: member.keyLine, column: member.keyColumn)
        }
        return table
    }
}

/// The recursive-descent parser behind ``StringsFileReader``.
private struct StringsParser {
    var cursor: ScalarCursor
    let file: String

    /// Parses the whole text: pairs, optionally wrapped in `{ }`.
    mutating func parseFile() throws(CatalogError) -> StringsTable {
        var table = StringsTable()
        try skipTrivia()
        let openingBrace = cursor.location
        let isWrapped = cursor.current == "{"
        if isWrapped { cursor.advance() }
        while true {
            try skipTrivia()
            if cursor.isAtEnd {
                if isWrapped {
                    throw error(at: cursor.location, "expected '}' to close the '{' on line \(openingBrace.line)")
                }
                return table
            }
            if isWrapped, cursor.current == "}" {
                cursor.advance()
                try skipTrivia()
                if !cursor.isAtEnd { throw error(at: cursor.location, "expected nothing after the closing '}'") }
                return table
            }
            let keyStart = cursor.location
            guard table.count < CatalogLimits.maximumEntries else {
                throw CatalogLimits.tooManyEntries(file: file, line: keyStart.line, column: keyStart.column)
            }
            let (key, value) = try parsePair()
            table.add(key: key, value: value, line: keyStart.line, column: keyStart.column)
        }
    }

    /// `key = value;` or `key;`.
    private mutating func parsePair() throws(CatalogError) -> (key: String, value: String) {
        guard let key = try parseString() else {
            throw error(at: cursor.location, "expected a key (a quoted string), found \(describeCurrent())")
        }
        let afterKey = cursor.location
        try skipTrivia()
        if cursor.current == ";" {
            cursor.advance()
            return (key, key)
        }
        guard cursor.current == "=" else {
            throw error(at: afterKey, "expected '=' after the key \(quoted(key))")
        }
        cursor.advance()
        try skipTrivia()
        if let current = cursor.current, "{(<".unicodeScalars.contains(current) {
            throw error(
                at: cursor.location,
                "expected a string as the value of \(quoted(key)); dictionaries, arrays and data are not allowed in .strings files")
        }
        guard let value = try parseString() else {
            throw error(at: cursor.location, "expected a value (a quoted string) after '=' for \(quoted(key)), found \(describeCurrent())")
        }
        let afterValue = cursor.location
        try skipTrivia()
        guard cursor.current == ";" else {
            throw error(at: afterValue, "expected ';' after the value of \(quoted(key))")
        }
        cursor.advance()
        return (key, value)
    }

    /// A quoted or unquoted string, or `nil` if none starts here.
    private mutating func parseString() throws(CatalogError) -> String? {
        guard let first = cursor.current else { return nil }
        if first == "\"" || first == "'" { return try parseQuoted(quote: first) }
        var text = ""
        while let scalar = cursor.current, Self.isUnquotedScalar(scalar) {
            text.unicodeScalars.append(scalar)
            cursor.advance()
        }
        return text.isEmpty ? nil : text
    }

    private static func isUnquotedScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", ".", "-", "$", ":", "/", "+": true
        default: false
        }
    }

    private mutating func parseQuoted(quote: Unicode.Scalar) throws(CatalogError) -> String {
        let start = cursor.location
        cursor.advance()
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = cursor.current else {
                throw error(at: start, "the string starting here is not closed with \(quote)")
            }
            if scalar == quote {
                cursor.advance()
                return String(text)
            }
            if scalar == "\\" {
                text.append(try parseEscape(stringStart: start))
            } else {
                text.append(scalar)
                cursor.advance()
            }
        }
    }

    /// One escape sequence, the cursor at its backslash.
    private mutating func parseEscape(stringStart: ScalarCursor.Location) throws(CatalogError) -> Unicode.Scalar {
        let start = cursor.location
        cursor.advance()
        guard let letter = cursor.current else {
            throw error(at: stringStart, "the string starting here is not closed")
        }
        cursor.advance()
        switch letter {
        case "n": return "\n"
        case "t": return "\t"
        case "r": return "\r"
        case "a": return "\u{07}"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "U", "u":
            let unit = try parseHexUnit(escapeStart: start)
            if UTF16.isLeadSurrogate(unit) {
                guard cursor.current == "\\", cursor.peek(1) == "U" || cursor.peek(1) == "u" else {
                    throw error(at: start, "the escape \\U\(hex(unit)) is the first half of a surrogate pair without its second half")
                }
                let secondStart = cursor.location
                cursor.advance(by: 2)
                let trail = try parseHexUnit(escapeStart: secondStart)
                guard UTF16.isTrailSurrogate(trail) else {
                    throw error(at: secondStart, "expected the second half of the surrogate pair started by \\U\(hex(unit)), found \\U\(hex(trail))")
                }
                let value = 0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00)
                guard let scalar = Unicode.Scalar(value) else {
                    throw error(at: start, "the surrogate pair does not make a Unicode character")
                }
                return scalar
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw error(at: start, "the escape \\U\(hex(unit)) is the second half of a surrogate pair without its first half")
            }
            return scalar
        case "0"..."7":
            // Up to three octal digits, the first already read.
            var value = letter.value - 48
            for _ in 0..<2 {
                guard let digit = cursor.current, ("0"..."7").contains(digit) else { break }
                value = value * 8 + digit.value - 48
                cursor.advance()
            }
            // Three octal digits reach 0o777; only one byte's worth is meaningful.
            return Unicode.Scalar(UInt8(truncatingIfNeeded: value))
        default:
            return letter
        }
    }

    /// Up to four hex digits after `\U`.
    private mutating func parseHexUnit(escapeStart: ScalarCursor.Location) throws(CatalogError) -> UInt16 {
        var value: UInt16 = 0
        var count = 0
        while count < 4, let scalar = cursor.current, let digit = Self.hexValue(scalar) {
            value = value << 4 | digit
            count += 1
            cursor.advance()
        }
        guard count > 0 else { throw error(at: escapeStart, "expected hex digits after \\U") }
        return value
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt16? {
        switch scalar {
        case "0"..."9": UInt16(scalar.value - 48)
        case "a"..."f": UInt16(scalar.value - 87)
        case "A"..."F": UInt16(scalar.value - 55)
        default: nil
        }
    }

    /// Skips whitespace and comments.
    private mutating func skipTrivia() throws(CatalogError) {
        while true {
            cursor.skipWhitespace()
            if cursor.starts(with: "//") {
                while let scalar = cursor.current, scalar != "\n", scalar != "\r" { cursor.advance() }
            } else if cursor.starts(with: "/*") {
                let start = cursor.location
                cursor.advance(by: 2)
                while !cursor.skip("*/") {
                    guard !cursor.isAtEnd else { throw error(at: start, "the comment starting here is not closed with */") }
                    cursor.advance()
                }
            } else {
                return
            }
        }
    }

    private func describeCurrent() -> String {
        guard let scalar = cursor.current else { return "the end of the file" }
        if scalar.isWhitespace || scalar.value < 0x20 { return "U+\(hex(scalar.value))" }
        return "'\(scalar)'"
    }

    private func quoted(_ key: String) -> String {
        "\"\(key.count > 60 ? key.prefix(57) + "..." : key)\""
    }

    private func hex(_ value: some BinaryInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private func error(at location: ScalarCursor.Location, _ message: String) -> CatalogError {
        CatalogError(file: file, line: location.line, column: location.column, message: message)
    }
}
