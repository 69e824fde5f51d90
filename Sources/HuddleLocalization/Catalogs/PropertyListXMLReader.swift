/// A small XML reader for property lists, written for this purpose so that every error has a line and a
/// column (Foundation's property list parser on Linux gives neither) and so that uploaded files cannot
/// make it fetch anything or expand entities.
///
/// It reads the XML that property lists use: elements, attributes, text, the five predefined entities
/// and character references, CDATA sections, comments and processing instructions. A document type
/// declaration is skipped, internal subset and all; entities it declares are not expanded, and using one
/// is an error.
enum PropertyListXMLReader {
    /// Elements nested deeper than this are refused rather than risking the stack; property lists of
    /// strings are four levels deep.
    static let maximumDepth = CatalogLimits.maximumDepth

    /// True when decoded text starts (after whitespace) with `<`, which no `.strings` pair can.
    static func looksLikeXML(_ scalars: [Unicode.Scalar]) -> Bool {
        scalars.first { !$0.isWhitespace } == "<"
    }

    /// Reads a whole `<plist>` document into its one top-level value.
    static func read(scalars: [Unicode.Scalar], file: String) throws(CatalogError) -> PropertyListNode {
        try PropertyListBuilder(file: file).propertyList(from: try readDocument(scalars: scalars, file: file))
    }

    /// Reads an XML document's root element, with the same limits (Android's string resources use it too).
    static func readDocument(scalars: [Unicode.Scalar], file: String) throws(CatalogError) -> Element {
        var parser = XMLSyntaxParser(cursor: ScalarCursor(scalars), file: file)
        return try parser.parseDocument()
    }

    /// An XML element with the place it starts.
    struct Element {
        var name: String
        /// Its attributes in document order, values with references resolved.
        var attributes: [(name: String, value: String)] = []
        var children: [Child]
        var line: Int
        var column: Int
    }

    enum Child {
        case element(Element)
        case text(String, line: Int, column: Int)
    }
}

/// Turns the XML tree into property list values.
private struct PropertyListBuilder {
    let file: String

    func propertyList(from root: PropertyListXMLReader.Element) throws(CatalogError) -> PropertyListNode {
        guard root.name == "plist" else {
            throw error(at: root, "not a property list: expected a <plist> root element, found <\(root.name)>")
        }
        let values = try elements(in: root)
        guard values.count == 1, let value = values.first else {
            throw error(at: root, "expected exactly one value inside <plist>, found \(values.count)")
        }
        return try node(from: value, depth: 0)
    }

    private func node(from element: PropertyListXMLReader.Element, depth: Int) throws(CatalogError) -> PropertyListNode {
        let value: PropertyListNode.Value
        switch element.name {
        case "dict":
            var members: [PropertyListNode.Member] = []
            var pendingKey: (text: String, line: Int, column: Int)?
            for child in try elements(in: element) {
                if let key = pendingKey {
                    guard child.name != "key" else {
                        throw error(at: child, "the key \"\(key.text)\" has no value")
                    }
                    members.append(
                        PropertyListNode.Member(
                            key: key.text, keyLine: key.line, value: try node(from: child, depth: depth + 1), keyColumn: key.column))
                    pendingKey = nil
                } else {
                    guard child.name == "key" else {
                        throw error(at: child, "expected <key> in <dict>, found <\(child.name)>")
                    }
                    pendingKey = (try text(of: child), child.line, child.column)
                }
            }
            if let key = pendingKey {
                throw CatalogError(file: file, line: key.line, message: "the key \"\(key.text)\" has no value")
            }
            value = .dictionary(members)
        case "array":
            var items: [PropertyListNode] = []
            for child in try elements(in: element) { items.append(try node(from: child, depth: depth + 1)) }
            value = .array(items)
        case "string":
            value = .string(try text(of: element))
        case "integer", "real", "true", "false", "date", "data":
            value = .other(element.name)
        case "key":
            throw error(at: element, "a <key> belongs inside <dict>")
        default:
            throw error(at: element, "<\(element.name)> is not a property list element")
        }
        return PropertyListNode(value: value, line: element.line, column: element.column)
    }

    /// The child elements, refusing text other than the whitespace between them.
    private func elements(in element: PropertyListXMLReader.Element) throws(CatalogError) -> [PropertyListXMLReader.Element] {
        var elements: [PropertyListXMLReader.Element] = []
        for child in element.children {
            switch child {
            case .element(let inner):
                elements.append(inner)
            case .text(let text, let line, let column):
                guard text.unicodeScalars.allSatisfy({ $0.isWhitespace }) else {
                    throw CatalogError(file: file, line: line, column: column, message: "unexpected text in <\(element.name)>")
                }
            }
        }
        return elements
    }

    /// The text of a `<string>` or `<key>`, which may not hold elements.
    private func text(of element: PropertyListXMLReader.Element) throws(CatalogError) -> String {
        var text = ""
        for child in element.children {
            switch child {
            case .text(let piece, _, _): text += piece
            case .element(let inner): throw error(at: inner, "unexpected <\(inner.name)> inside <\(element.name)>")
            }
        }
        return text
    }

    private func error(at element: PropertyListXMLReader.Element, _ message: String) -> CatalogError {
        CatalogError(file: file, line: element.line, column: element.column, message: message)
    }
}

/// The XML syntax layer.
private struct XMLSyntaxParser {
    var cursor: ScalarCursor
    let file: String
    /// Elements read so far, held to ``CatalogLimits/maximumEntries``.
    private var elementCount = 0

    init(cursor: ScalarCursor, file: String) {
        self.cursor = cursor
        self.file = file
    }

    mutating func parseDocument() throws(CatalogError) -> PropertyListXMLReader.Element {
        try skipMisc(allowsDocumentType: true)
        guard cursor.current == "<" else {
            throw error("not a property list: expected an XML element, found \(describeCurrent())")
        }
        let root = try parseElement(depth: 0)
        try skipMisc(allowsDocumentType: false)
        guard cursor.isAtEnd else { throw error("expected nothing after the root element </\(root.name)>") }
        return root
    }

    /// Skips whitespace, comments, processing instructions and (before the root) the document type.
    private mutating func skipMisc(allowsDocumentType: Bool) throws(CatalogError) {
        while true {
            cursor.skipWhitespace()
            if cursor.starts(with: "<?") {
                try skipProcessingInstruction()
            } else if cursor.starts(with: "<!--") {
                try skipComment()
            } else if allowsDocumentType, cursor.starts(with: "<!DOCTYPE") {
                try skipDocumentType()
            } else {
                return
            }
        }
    }

    private mutating func parseElement(depth: Int) throws(CatalogError) -> PropertyListXMLReader.Element {
        let start = cursor.location
        guard depth < PropertyListXMLReader.maximumDepth else {
            throw CatalogLimits.nestedTooDeeply(file: file, line: start.line, column: start.column, "elements")
        }
        elementCount += 1
        guard elementCount <= CatalogLimits.maximumEntries else {
            throw CatalogLimits.tooManyEntries(file: file, line: start.line, column: start.column)
        }
        cursor.advance()  // <
        guard let name = parseName() else { throw error("expected an element name after '<'") }
        var element = PropertyListXMLReader.Element(name: name, children: [], line: start.line, column: start.column)
        while true {
            let hadSpace = cursor.current?.isWhitespace ?? false
            cursor.skipWhitespace()
            if cursor.skip("/>") { return element }
            if cursor.skip(">") { break }
            guard hadSpace, let attribute = parseName() else {
                throw error("expected an attribute, '>' or '/>' in <\(name)>, found \(describeCurrent())")
            }
            cursor.skipWhitespace()
            guard cursor.skip("=") else { throw error("expected '=' after an attribute name in <\(name)>") }
            cursor.skipWhitespace()
            guard let quote = cursor.current, quote == "\"" || quote == "'" else {
                throw error("expected a quoted attribute value in <\(name)>")
            }
            cursor.advance()
            var value = String.UnicodeScalarView()
            while cursor.current != quote {
                guard let scalar = cursor.current, scalar != "<" else {
                    throw error("the attribute value in <\(name)> is not closed")
                }
                if scalar == "&" {
                    value.append(try parseReference())
                } else {
                    value.append(scalar)
                    cursor.advance()
                }
            }
            cursor.advance()
            element.attributes.append((attribute, String(value)))
        }
        var text = String.UnicodeScalarView()
        var textStart = cursor.location
        func flushText() {
            if !text.isEmpty {
                element.children.append(.text(String(text), line: textStart.line, column: textStart.column))
                text = String.UnicodeScalarView()
            }
        }
        while true {
            guard let scalar = cursor.current else {
                throw CatalogError(
                    file: file, line: start.line, column: start.column, message: "the element <\(name)> is not closed")
            }
            if text.isEmpty { textStart = cursor.location }
            if scalar == "<" {
                if cursor.starts(with: "</") {
                    flushText()
                    let closeLocation = cursor.location
                    cursor.advance(by: 2)
                    let closing = parseName() ?? ""
                    cursor.skipWhitespace()
                    guard closing == name, cursor.skip(">") else {
                        throw CatalogError(
                            file: file, line: closeLocation.line, column: closeLocation.column,
                            message: "expected </\(name)> to close the <\(name)> on line \(start.line), found </\(closing)")
                    }
                    return element
                } else if cursor.starts(with: "<!--") {
                    try skipComment()
                } else if cursor.starts(with: "<![CDATA[") {
                    let cdataStart = cursor.location
                    cursor.advance(by: 9)
                    while !cursor.skip("]]>") {
                        guard let inner = cursor.current else {
                            throw CatalogError(
                                file: file, line: cdataStart.line, column: cdataStart.column,
                                message: "the CDATA section starting here is not closed with ]]>")
                        }
                        appendNormalizingLineEnds(inner, to: &text)
                    }
                } else if cursor.starts(with: "<?") {
                    try skipProcessingInstruction()
                } else if cursor.starts(with: "<!") {
                    throw error("unexpected markup declaration inside <\(name)>")
                } else {
                    flushText()
                    element.children.append(.element(try parseElement(depth: depth + 1)))
                }
            } else if scalar == "&" {
                text.append(try parseReference())
            } else {
                appendNormalizingLineEnds(scalar, to: &text)
            }
        }
    }

    /// Appends the scalar under the cursor and moves on; `\r\n` and a lone `\r` become `\n`, as XML
    /// requires.
    private mutating func appendNormalizingLineEnds(_ scalar: Unicode.Scalar, to text: inout String.UnicodeScalarView) {
        cursor.advance()
        if scalar == "\r" {
            if cursor.current == "\n" { cursor.advance() }
            text.append("\n")
        } else {
            text.append(scalar)
        }
    }

    /// `&amp;`, `&#233;`, `&#xE9;`…, the cursor at `&`.
    private mutating func parseReference() throws(CatalogError) -> Unicode.Scalar {
        let start = cursor.location
        cursor.advance()
        var name = ""
        while let scalar = cursor.current, scalar != ";" {
            guard name.unicodeScalars.count < 16, !scalar.isWhitespace, scalar != "<", scalar != "&" else {
                throw CatalogError(
                    file: file, line: start.line, column: start.column,
                    message: "a '&' must start an entity such as &amp; (write & as &amp;)")
            }
            name.unicodeScalars.append(scalar)
            cursor.advance()
        }
        guard cursor.skip(";") else {
            throw CatalogError(file: file, line: start.line, column: start.column, message: "the entity &\(name) is not closed with ';'")
        }
        let scalar: Unicode.Scalar?
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            } else {
                throw CatalogError(
                    file: file, line: start.line, column: start.column,
                    message: "unknown entity &\(name); (only &lt; &gt; &amp; &quot; &apos; and character references are allowed)")
            }
        }
        guard let scalar, scalar.value != 0 else {
            throw CatalogError(
                file: file, line: start.line, column: start.column, message: "&\(name); is not a valid character")
        }
        return scalar
    }

    private mutating func parseName() -> String? {
        var name = ""
        while let scalar = cursor.current, !scalar.isWhitespace,
            !"<>/=?!'\"&;[]".unicodeScalars.contains(scalar)
        {
            name.unicodeScalars.append(scalar)
            cursor.advance()
        }
        return name.isEmpty ? nil : name
    }

    private mutating func skipComment() throws(CatalogError) {
        let start = cursor.location
        cursor.advance(by: 4)
        while !cursor.skip("-->") {
            guard !cursor.isAtEnd else {
                throw CatalogError(
                    file: file, line: start.line, column: start.column, message: "the comment starting here is not closed with -->")
            }
            cursor.advance()
        }
    }

    private mutating func skipProcessingInstruction() throws(CatalogError) {
        let start = cursor.location
        cursor.advance(by: 2)
        while !cursor.skip("?>") {
            guard !cursor.isAtEnd else {
                throw CatalogError(
                    file: file, line: start.line, column: start.column, message: "the <? starting here is not closed with ?>")
            }
            cursor.advance()
        }
    }

    /// Skips `<!DOCTYPE …>`, including an internal subset in brackets and quoted identifiers.
    private mutating func skipDocumentType() throws(CatalogError) {
        let start = cursor.location
        cursor.advance(by: 9)
        var bracketDepth = 0
        var quote: Unicode.Scalar?
        while let scalar = cursor.current {
            cursor.advance()
            if let open = quote {
                if scalar == open { quote = nil }
            } else if scalar == "\"" || scalar == "'" {
                quote = scalar
            } else if scalar == "[" {
                bracketDepth += 1
            } else if scalar == "]" {
                bracketDepth -= 1
            } else if scalar == ">", bracketDepth <= 0 {
                return
            }
        }
        throw CatalogError(file: file, line: start.line, column: start.column, message: "the <!DOCTYPE starting here is not closed")
    }

    private func describeCurrent() -> String {
        guard let scalar = cursor.current else { return "the end of the file" }
        return scalar.isWhitespace ? "whitespace" : "'\(scalar)'"
    }

    private func error(_ message: String) -> CatalogError {
        CatalogError(file: file, line: cursor.line, column: cursor.column, message: message)
    }
}
