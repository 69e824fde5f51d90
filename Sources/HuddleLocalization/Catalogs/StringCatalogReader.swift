public import Foundation

/// Reads String Catalogs (`.xcstrings`, Xcode 15 and later): one JSON file holding every language.
///
/// How the parts of a localization become entries:
/// - `stringUnit.value` is ``LocalizedEntry/text(_:)``. Every `state` is kept (`new`, `needs_review`,
///   `translated`, `stale`): a stale or unreviewed translation still reads better to a viewer of that
///   language than the development language, and linting is where states matter.
/// - `variations.plural` becomes a ``PluralFormat`` whose format is one synthetic variable standing for
///   the whole string (``pluralVariableName``, renamed if a substitution already uses the name). Its
///   number is the first integer conversion of the `other` form, so its argument position and value type
///   come from there.
/// - `variations.device` picks one device, since a notification is rendered for no device in particular:
///   `other` if the catalog has it, else the localization's own `stringUnit` if it has one, else the first
///   device in the file. Device variations may hold plural variations, and the other way round.
/// - `substitutions` become the format's variables: a value `%#@NAME@` with a substitution `NAME` gets a
///   ``PluralVariable`` with `argumentPosition` from `argNum` and `valueType` from `formatSpecifier`; the
///   `%arg` placeholder in its forms becomes `%` followed by the format specifier (`%lld`).
/// - A key without a localization in the source language gets its key as its text there, because in a
///   String Catalog the key is the source string unless the source language says otherwise.
public struct StringCatalogReader: Sendable {
    /// The name of the synthetic variable for `variations.plural`; the double underscores keep it apart
    /// from Xcode's substitution names (`arg1`, or names taken from the code).
    public static let pluralVariableName = "__plural"

    /// Everything a catalog holds that Huddle uses.
    public struct Catalog: Sendable, Hashable {
        /// The catalog's `sourceLanguage`, as written.
        public var sourceLanguage: String
        /// The catalog's `version`, when present (Xcode writes "1.0").
        public var version: String?
        /// Entries by language, languages as written in the file (`zh-Hans`, `pt-BR`).
        public var tables: [String: [String: LocalizedEntry]]
        /// The keys whose source-language entry is the key itself, because the catalog has no
        /// source-language localization for them.
        public var keysStandingForThemselves: Set<String>

        public init(
            sourceLanguage: String, version: String? = nil, tables: [String: [String: LocalizedEntry]],
            keysStandingForThemselves: Set<String> = []
        ) {
            self.sourceLanguage = sourceLanguage
            self.version = version
            self.tables = tables
            self.keysStandingForThemselves = keysStandingForThemselves
        }
    }

    public init() {}

    /// Reads one catalog.
    /// - Parameters:
    ///   - data: the file's bytes (UTF-8 JSON).
    ///   - file: the name errors use, e.g. `Localizable.xcstrings`.
    /// - Throws: ``CatalogError`` with the line, column and JSON key path of the first problem
    ///   (`strings.GREETING.localizations.de.stringUnit.value: expected a string, found a number`), or
    ///   naming the limit of ``CatalogLimits`` the file is past.
    public func read(_ data: Data, file: String) throws(CatalogError) -> Catalog {
        try readContents(data, file: file, isLenient: false).catalog
    }

    /// A catalog with what a linter needs beside its entries.
    struct Contents {
        var catalog: Catalog
        /// Where each key's entry starts under `strings`.
        var keyLocations: [String: SourceLocation] = [:]
        /// Where each localization starts, by language then key.
        var locations: [String: [String: SourceLocation]] = [:]
        /// Where each plural variable is written (its `variations.plural` or substitution), by language, key
        /// and variable name.
        var variableLocations: [String: [String: [String: SourceLocation]]] = [:]
        /// Each localization's `stringUnit.state` (`translated`, `needs_review`, `new`, `stale`), by
        /// language then key.
        var states: [String: [String: String]] = [:]
        /// Each key's `extractionState` (`manual`, `stale`, `extracted_with_value`…).
        var extractionStates: [String: String] = [:]
        /// Keys marked `"shouldTranslate": false`.
        var keysNotToTranslate: Set<String> = []
        /// Problems a lenient read let through.
        var problems: [CatalogError] = []
    }

    /// Reads a catalog.
    /// - Parameter isLenient: when true, a plural variation without `other` and a `%#@name@` without its
    ///   substitution are recorded in `problems` and the entry is kept; when false they are thrown.
    func readContents(_ data: Data, file: String, isLenient: Bool) throws(CatalogError) -> Contents {
        let root = try JSONNodeReader.read(scalars: CatalogTextDecoder.decode(data, file: file), file: file)
        var interpreter = CatalogInterpreter(file: file, isLenient: isLenient)
        let catalog = try interpreter.catalog(from: root)
        var contents = interpreter.contents
        contents.catalog = catalog
        return contents
    }
}

/// A localization or variation reduced to what a notification needs.
private enum ResolvedText {
    case text(String)
    /// Plural forms, and where they were written.
    case plural([PluralCategory: String], node: JSONNode, path: String)
}

/// Walks the JSON of a catalog, checking types as it goes.
private struct CatalogInterpreter {
    let file: String
    let isLenient: Bool
    /// What was found beside the entries (the catalog itself is filled in by the caller).
    var contents = StringCatalogReader.Contents(catalog: StringCatalogReader.Catalog(sourceLanguage: "", tables: [:]))
    /// The language and key being read, so that variables found deep inside are filed under them.
    private var current: (language: String, key: String)?

    init(file: String, isLenient: Bool) {
        self.file = file
        self.isLenient = isLenient
    }

    mutating func catalog(from root: JSONNode) throws(CatalogError) -> StringCatalogReader.Catalog {
        _ = try object(root, at: "")
        guard let sourceNode = root["sourceLanguage"] else {
            throw error(at: root, path: "", "the catalog has no sourceLanguage")
        }
        let sourceLanguage = try string(sourceNode, at: "sourceLanguage")
        let version = try root["version"].map { node throws(CatalogError) in try string(node, at: "version") }
        var tables: [String: [String: LocalizedEntry]] = [:]
        var keysStandingForThemselves: Set<String> = []
        if let stringsNode = root["strings"] {
            for (key, entryNode) in try object(stringsNode, at: "strings") {
                let entryPath = "strings" + pathComponent(key)
                _ = try object(entryNode, at: entryPath)
                contents.keyLocations[key] = SourceLocation(line: entryNode.line, column: entryNode.column)
                if let extraction = entryNode["extractionState"] {
                    contents.extractionStates[key] = try string(extraction, at: entryPath + ".extractionState")
                }
                if case .bool(false)? = entryNode["shouldTranslate"]?.value { contents.keysNotToTranslate.insert(key) }
                var hasSourceLocalization = false
                if let localizationsNode = entryNode["localizations"] {
                    let localizationsPath = entryPath + ".localizations"
                    for (language, localizationNode) in try object(localizationsNode, at: localizationsPath) {
                        let path = localizationsPath + pathComponent(language)
                        current = (language, key)
                        guard let entry = try localizedEntry(localizationNode, at: path) else { continue }
                        tables[language, default: [:]][key] = entry
                        contents.locations[language, default: [:]][key] = SourceLocation(
                            line: localizationNode.line, column: localizationNode.column)
                        if let state = localizationNode["stringUnit"]?["state"], case .string(let text) = state.value {
                            contents.states[language, default: [:]][key] = text
                        }
                        if language == sourceLanguage { hasSourceLocalization = true }
                    }
                }
                if !hasSourceLocalization {
                    tables[sourceLanguage, default: [:]][key] = .text(key)
                    keysStandingForThemselves.insert(key)
                }
            }
        }
        return StringCatalogReader.Catalog(
            sourceLanguage: sourceLanguage, version: version, tables: tables,
            keysStandingForThemselves: keysStandingForThemselves)
    }

    /// One language's localization of a key, or `nil` when it has no string (an empty object).
    private mutating func localizedEntry(_ node: JSONNode, at path: String) throws(CatalogError) -> LocalizedEntry? {
        var variables: [String: PluralVariable] = [:]
        var usingTexts: [(text: String, node: JSONNode, path: String)] = []
        if let substitutionsNode = node["substitutions"] {
            let substitutionsPath = path + ".substitutions"
            for (name, substitutionNode) in try object(substitutionsNode, at: substitutionsPath) {
                let substitutionPath = substitutionsPath + pathComponent(name)
                let variable = try substitution(substitutionNode, at: substitutionPath)
                variables[name] = variable
                recordVariable(name, at: substitutionNode)
                for (category, form) in variable.forms.sorted(by: { $0.key < $1.key }) {
                    usingTexts.append((form, substitutionNode, substitutionPath + ".variations.plural." + category.rawValue))
                }
            }
        }
        guard let resolved = try resolve(node, at: path) else {
            if !variables.isEmpty {
                throw error(at: node, path: path, "the localization has substitutions but no stringUnit to use them")
            }
            return nil
        }
        let format: String
        switch resolved {
        case .text(let text):
            guard !variables.isEmpty || !FormatScanner.pluralVariables(in: text).isEmpty else { return .text(text) }
            format = text
            usingTexts.append((text, node["stringUnit"] ?? node, path + ".stringUnit.value"))
        case .plural(let forms, let pluralNode, let pluralPath):
            var name = StringCatalogReader.pluralVariableName
            var suffix = 2
            while variables[name] != nil {
                name = StringCatalogReader.pluralVariableName + String(suffix)
                suffix += 1
            }
            let number = forms[.other].flatMap(FormatScanner.firstIntegerConversion(in:))
            variables[name] = PluralVariable(
                valueType: number?.specifier, forms: forms, argumentPosition: number?.argumentPosition)
            recordVariable(name, at: pluralNode)
            format = "%#@\(name)@"
            for (category, form) in forms.sorted(by: { $0.key < $1.key }) {
                usingTexts.append((form, pluralNode, pluralPath + "." + category.rawValue))
            }
        }
        for using in usingTexts {
            for name in FormatScanner.pluralVariables(in: using.text) where variables[name] == nil {
                try report(error(
                    .undefinedVariable, at: using.node, path: using.path,
                    "%#@\(name)@ is used, but the localization has no substitution named \"\(name)\""))
            }
        }
        return .plural(PluralFormat(format: format, variables: variables))
    }

    /// Files where a variable of the localization being read is written.
    private mutating func recordVariable(_ name: String, at node: JSONNode) {
        guard let (language, key) = current else { return }
        contents.variableLocations[language, default: [:]][key, default: [:]][name] = SourceLocation(line: node.line, column: node.column)
    }

    /// Throws `problem`, or records it when reading leniently.
    private mutating func report(_ problem: CatalogError) throws(CatalogError) {
        guard isLenient else { throw problem }
        contents.problems.append(problem)
    }

    /// A substitution: a plural variable with its argument.
    private mutating func substitution(_ node: JSONNode, at path: String) throws(CatalogError) -> PluralVariable {
        _ = try object(node, at: path)
        guard let argumentNode = node["argNum"] else { throw error(at: node, path: path, "the substitution has no argNum") }
        guard case .number(let argumentText) = argumentNode.value, let argument = Int(argumentText), argument >= 1 else {
            throw error(at: argumentNode, path: path + ".argNum", "expected a positive whole number, found \(describe(argumentNode))")
        }
        guard let specifierNode = node["formatSpecifier"] else {
            throw error(at: node, path: path, "the substitution has no formatSpecifier (such as \"lld\")")
        }
        let specifier = try string(specifierNode, at: path + ".formatSpecifier")
        guard let resolved = try resolve(node, at: path), case .plural(let forms, _, _) = resolved else {
            throw error(at: node, path: path, "the substitution has no plural variation")
        }
        return PluralVariable(
            valueType: specifier,
            forms: forms.mapValues { FormatScanner.replacingArgumentPlaceholder(in: $0, with: specifier) },
            argumentPosition: argument)
    }

    /// A node with a `stringUnit` and/or `variations`, reduced to text or plural forms; `nil` when it has
    /// neither.
    private mutating func resolve(_ node: JSONNode, at path: String) throws(CatalogError) -> ResolvedText? {
        _ = try object(node, at: path)
        let unitText = try node["stringUnit"].map { unit throws(CatalogError) in try stringUnitValue(unit, at: path + ".stringUnit") }
        guard let variationsNode = node["variations"] else { return unitText.map(ResolvedText.text) }
        let variationsPath = path + ".variations"
        let kinds = try object(variationsNode, at: variationsPath)
        for (kind, kindNode) in kinds where kind != "plural" && kind != "device" {
            throw error(at: kindNode, path: variationsPath + pathComponent(kind), "\"\(kind)\" variations are not supported (only plural and device are)")
        }
        // Xcode never varies one level by both; if a file does, the device is chosen first.
        if let deviceNode = variationsNode["device"] {
            let devicePath = variationsPath + ".device"
            let devices = try object(deviceNode, at: devicePath)
            if let other = deviceNode["other"] {
                return try resolve(other, at: devicePath + ".other")
            }
            if let unitText { return .text(unitText) }
            if let (device, first) = devices.first {
                return try resolve(first, at: devicePath + pathComponent(device))
            }
            return nil
        }
        guard let pluralNode = variationsNode["plural"] else { return unitText.map(ResolvedText.text) }
        let pluralPath = variationsPath + ".plural"
        var forms: [PluralCategory: String] = [:]
        for (name, formNode) in try object(pluralNode, at: pluralPath) {
            let formPath = pluralPath + pathComponent(name)
            guard let category = PluralCategory(rawValue: name) else {
                throw error(
                    at: formNode, path: formPath, "\"\(name)\" is not a plural category (expected zero, one, two, few, many or other)")
            }
            switch try resolve(formNode, at: formPath) {
            case .text(let text)?: forms[category] = text
            case .plural?: throw error(at: formNode, path: formPath, "a plural form cannot vary by plural again")
            case nil: throw error(at: formNode, path: formPath, "the plural form has no stringUnit")
            }
        }
        if forms[.other] == nil {
            try report(error(.missingOtherForm, at: pluralNode, path: pluralPath, "the plural variation has no \"other\" form"))
        }
        return .plural(forms, node: pluralNode, path: pluralPath)
    }

    private func stringUnitValue(_ node: JSONNode, at path: String) throws(CatalogError) -> String {
        _ = try object(node, at: path)
        if let state = node["state"] { _ = try string(state, at: path + ".state") }
        guard let value = node["value"] else { throw error(at: node, path: path, "the stringUnit has no value") }
        return try string(value, at: path + ".value")
    }

    // MARK: Types

    private func object(_ node: JSONNode, at path: String) throws(CatalogError) -> [(key: String, value: JSONNode)] {
        guard case .object(let members) = node.value else {
            throw error(at: node, path: path, "expected an object, found \(describe(node))")
        }
        return members
    }

    private func string(_ node: JSONNode, at path: String) throws(CatalogError) -> String {
        guard case .string(let text) = node.value else {
            throw error(at: node, path: path, "expected a string, found \(describe(node))")
        }
        return text
    }

    private func describe(_ node: JSONNode) -> String {
        switch node.value {
        case .number(let text): "the number \(text)"
        case .string(let text): "the string \"\(text.count > 40 ? text.prefix(37) + "..." : text)\""
        default: node.value.kindDescription
        }
    }

    /// `.KEY`, or `["some key"]` for keys that would not read well after a dot.
    private func pathComponent(_ key: String) -> String {
        let isPlain = !key.isEmpty && key.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-": true
            default: false
            }
        }
        guard !isPlain else { return "." + key }
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "[\"\(escaped)\"]"
    }

    private func error(_ code: CatalogError.Code = .unreadable, at node: JSONNode, path: String, _ message: String) -> CatalogError {
        CatalogError(code, file: file, line: node.line, column: node.column, keyPath: path.isEmpty ? nil : path, message: message)
    }
}
