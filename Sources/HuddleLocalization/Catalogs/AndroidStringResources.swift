public import Foundation

/// An Android app's string resources, from its `res/values*/` XML files (`<resources>` of `<string name>` and
/// `<plurals name>` with `<item quantity>`), as aapt2 compiles them: escapes (`\'`, `\"`, `\n`, `\t`, `\uXXXX`, `\@`,
/// `\?`), double quotes that keep whitespace as written, other whitespace collapsed to one space and trimmed, and the
/// text of styling elements (`<b>`, `<xliff:g>`) kept without their tags.
///
/// Read with the property lists' XML reader: no entity is expanded, nothing is fetched, depth and count are bounded,
/// and every error names the file, line and column.
public struct AndroidStringResources: Sendable, Hashable {
    public var strings: [String: String] = [:]
    /// Each plural's text by CLDR category.
    public var plurals: [String: [PluralCategory: String]] = [:]

    public init() {}

    public static func read(_ data: Data, file: String) throws(CatalogError) -> AndroidStringResources {
        let root = try PropertyListXMLReader.readDocument(scalars: CatalogTextDecoder.decode(data, file: file), file: file)
        guard root.name == "resources" else {
            throw CatalogError(file: file, line: root.line, column: root.column, message: "expected a <resources> root element, found <\(root.name)>")
        }
        var resources = AndroidStringResources()
        for case .element(let element) in root.children {
            func fail(_ message: String) -> CatalogError {
                CatalogError(file: file, line: element.line, column: element.column, message: message)
            }
            guard element.name == "string" || element.name == "plurals" else { continue }
            guard let name = element.attributes.first(where: { $0.name == "name" })?.value, !name.isEmpty else {
                throw fail("<\(element.name)> has no name attribute")
            }
            if element.name == "string" {
                resources.strings[name] = compiled(element)
                continue
            }
            var forms: [PluralCategory: String] = [:]
            for case .element(let item) in element.children {
                guard item.name == "item",
                    let quantity = item.attributes.first(where: { $0.name == "quantity" })?.value,
                    let category = PluralCategory(rawValue: quantity)
                else {
                    throw CatalogError(
                        file: file, line: item.line, column: item.column,
                        message: "a <plurals> holds <item quantity=\"zero|one|two|few|many|other\"> elements")
                }
                forms[category] = compiled(item)
            }
            guard forms[.other] != nil else { throw fail("the plural \"\(name)\" has no \"other\" item") }
            resources.plurals[name] = forms
        }
        return resources
    }

    /// An element's text as aapt2 compiles it.
    static func compiled(_ element: PropertyListXMLReader.Element) -> String {
        var raw = String.UnicodeScalarView()
        func gather(_ element: PropertyListXMLReader.Element) {
            for child in element.children {
                switch child {
                case .text(let text, _, _): raw.append(contentsOf: text.unicodeScalars)
                case .element(let inner): gather(inner)
                }
            }
        }
        gather(element)
        var output = String.UnicodeScalarView()
        var quoted = false
        var pendingSpace = false
        var scalars = raw.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\"" {
                quoted.toggle()
                continue
            }
            if !quoted, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
                pendingSpace = !output.isEmpty
                continue
            }
            if pendingSpace {
                output.append(" ")
                pendingSpace = false
            }
            guard scalar == "\\", let escaped = scalars.next() else {
                output.append(scalar)
                continue
            }
            switch escaped {
            case "n": output.append("\n")
            case "t": output.append("\t")
            case "u":
                var hex = ""
                while hex.count < 4, let digit = scalars.next() { hex.unicodeScalars.append(digit) }
                if let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) { output.append(decoded) }
            default: output.append(escaped)
            }
        }
        return String(output)
    }

    /// `String.format` of a resource with string arguments, as `Resources.getString(id, args)` makes it: `%s` (and
    /// `%S`, in upper case) take the next argument, `%1$s` the one named, `%%` is `%`, `%n` a line break. Any other
    /// conversion of a string argument is an exception on Android (`IllegalFormatConversionException`), as are too few
    /// arguments: the Firebase SDK then shows no text, and so this gives `nil`.
    public static func format(_ template: String, arguments: [String]) -> String? {
        var output = String.UnicodeScalarView()
        var scalars = Array(template.unicodeScalars)[...]
        var next = 0
        while let scalar = scalars.popFirst() {
            guard scalar == "%" else {
                output.append(scalar)
                continue
            }
            // %[argument_index$][flags][width][.precision]conversion
            var digits = ""
            var index: Int?
            var spec = scalars
            while let digit = spec.first, ("0"..."9").contains(digit) {
                digits.unicodeScalars.append(digit)
                spec = spec.dropFirst()
            }
            if spec.first == "$", let explicit = Int(digits), explicit >= 1 {
                index = explicit - 1
                spec = spec.dropFirst()
            }
            while let flag = spec.first, "-#+ 0,(".unicodeScalars.contains(flag) || ("0"..."9").contains(flag) || flag == "." {
                spec = spec.dropFirst()
            }
            guard let conversion = spec.popFirst() else { return nil }
            scalars = spec
            switch conversion {
            case "%": output.append("%")
            case "n": output.append("\n")
            case "s", "S":
                let position = index ?? next
                if index == nil { next += 1 }
                guard arguments.indices.contains(position) else { return nil }
                output.append(contentsOf: (conversion == "S" ? arguments[position].uppercased() : arguments[position]).unicodeScalars)
            default:
                return nil
            }
        }
        return String(output)
    }
}

/// An app's resource folders (`values`, `values-de`, `values-de-rAT`, `values-b+sr+Latn`), by language.
public struct AndroidResourceSet: Sendable {
    /// By language tag (`de`, `de-AT`, `sr-Latn`); `""` for the default folder.
    private var folders: [String: AndroidStringResources] = [:]

    /// Whether `path` is an Android resource file: `values[-qualifiers]/NAME.xml`.
    public static func isResourcePath(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard components.count == 2, components[1].lowercased().hasSuffix(".xml") else { return false }
        return components[0] == "values" || components[0].hasPrefix("values-")
    }

    /// Reads the resource files among `files` (by path); other files are not looked at. A folder whose qualifiers are
    /// not a language and region (`values-night`, `values-v31`) is left out: Huddle's devices have no such state.
    /// - Throws: the first file's ``CatalogError`` that cannot be read.
    public init(files: [String: Data]) throws(CatalogError) {
        for (path, data) in files.sorted(by: { $0.key < $1.key }) where Self.isResourcePath(path) {
            guard let language = Self.language(ofFolder: String(path.split(separator: "/")[0])) else { continue }
            let resources = try AndroidStringResources.read(data, file: path)
            folders[language, default: AndroidStringResources()].strings.merge(resources.strings) { _, new in new }
            folders[language, default: AndroidStringResources()].plurals.merge(resources.plurals) { _, new in new }
        }
    }

    public var isEmpty: Bool { folders.isEmpty }

    /// An app without resources.
    public static let none = AndroidResourceSet()

    private init() {}

    /// The language a folder holds: `""` for `values`, `de` for `values-de`, `de-AT` for `values-de-rAT`, `sr-Latn` for
    /// `values-b+sr+Latn`; `nil` for other qualifiers.
    static func language(ofFolder folder: String) -> String? {
        let qualifiers = folder.split(separator: "-").dropFirst()
        guard let first = qualifiers.first else { return "" }
        if first.hasPrefix("b+"), qualifiers.count == 1 {
            return first.dropFirst(2).split(separator: "+").joined(separator: "-")
        }
        guard (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLowercase }) else { return nil }
        switch qualifiers.count {
        case 1: return String(first)
        case 2:
            let region = qualifiers[qualifiers.startIndex + 1]
            guard region.count == 3, region.first == "r" else { return nil }
            return "\(first)-\(region.dropFirst())"
        default: return nil
        }
    }

    /// A string resource for the first of `languages` the app has it in (a language and region, then the language
    /// alone), else from its default folder, as Android falls back to `values`; `nil` when the app has none.
    public func string(_ name: String, languages: [String]) -> String? {
        for language in languages {
            let tag = language.replacingOccurrences(of: "_", with: "-")
            let parts = tag.split(separator: "-")
            var candidates = [tag]
            if parts.count > 1 { candidates.append(String(parts[0])) }
            for candidate in candidates {
                if let folder = folders.first(where: { $0.key.caseInsensitiveCompare(candidate) == .orderedSame })?.value,
                    let text = folder.strings[name]
                {
                    return text
                }
            }
        }
        return folders[""]?.strings[name]
    }
}
