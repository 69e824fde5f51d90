public import Foundation

/// Reads `.stringsdict` files: property lists whose entries are formats with plural variables.
///
/// Each top-level key maps to either a string, read as ``LocalizedEntry/text(_:)``, or a dictionary
/// read as ``LocalizedEntry/plural(_:)``:
///
/// ```xml
/// <key>NOTIFICATION_SUMMARY</key>
/// <dict>
///     <key>NSStringLocalizedFormatKey</key> <string>%#@notifications@</string>
///     <key>notifications</key>
///     <dict>
///         <key>NSStringFormatSpecTypeKey</key>  <string>NSStringPluralRuleType</string>
///         <key>NSStringFormatValueTypeKey</key> <string>u</string>
///         <key>one</key>   <string>%u more notification</string>
///         <key>other</key> <string>%u more notifications</string>
///     </dict>
/// </dict>
/// ```
///
/// A format may use several variables (`%1$#@files@ in %2$#@folders@`), and a form may use another
/// variable of the same entry. An entry is refused when a variable has no `other` form, when a variable
/// is not of `NSStringPluralRuleType`, when a format or form uses a variable the entry does not define,
/// or when variables use each other in a circle. Dictionary members that are not dictionaries and that
/// no format uses are ignored, as on Apple platforms.
///
/// XML property lists are read with their line numbers; binary ones (as in compiled apps) through
/// Foundation, so their errors have no lines.
public struct StringsdictReader: Sendable {
    static let formatKey = "NSStringLocalizedFormatKey"
    static let specTypeKey = "NSStringFormatSpecTypeKey"
    static let valueTypeKey = "NSStringFormatValueTypeKey"
    static let pluralRuleType = "NSStringPluralRuleType"

    public init() {}

    /// The entries of one file.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - file: the name errors use, e.g. `ru.lproj/Localizable.stringsdict`.
    /// - Throws: ``CatalogError`` with the line and the key path (`NOTIFICATION_SUMMARY.notifications`) of
    ///   the first problem, or naming the limit of ``CatalogLimits`` the file is past.
    public func read(_ data: Data, file: String) throws(CatalogError) -> [String: LocalizedEntry] {
        try readTable(data, file: file).entries
    }

    /// The entries with their repeated keys, for the loader's warnings.
    func readTable(_ data: Data, file: String) throws(CatalogError) -> (
        entries: [String: LocalizedEntry], repeatedKeys: [(key: String, line: Int?, column: Int?)]
    ) {
        let contents = try readContents(data, file: file, isLenient: false)
        return (contents.entries, contents.repeatedKeys)
    }

    /// Everything one file holds, with where it is written.
    struct Contents {
        var entries: [String: LocalizedEntry] = [:]
        var repeatedKeys: [(key: String, line: Int?, column: Int?)] = []
        var locations: [String: SourceLocation] = [:]
        /// Where each plural variable's key is, by entry key then variable name.
        var variableLocations: [String: [String: SourceLocation]] = [:]
        /// Problems a lenient read let through (see `isLenient`).
        var problems: [CatalogError] = []
    }

    /// Reads a file.
    /// - Parameter isLenient: when true, a variable without `other` and a `%#@name@` without its
    ///   variable are recorded in `problems` and the entry is kept, so that a linter can go on to report
    ///   the rest of the file; when false they are thrown, as for any other problem.
    func readContents(_ data: Data, file: String, isLenient: Bool) throws(CatalogError) -> Contents {
        let root = try PropertyListNode.read(data, file: file)
        guard case .dictionary(let members) = root.value else {
            throw CatalogError(
                file: file, line: root.line, column: root.column,
                message: "expected a dictionary at the top of the property list, found \(root.value.kindDescription)")
        }
        var contents = Contents()
        for member in members {
            let entry: LocalizedEntry
            switch member.value.value {
            case .string(let text):
                entry = .text(text)
            case .dictionary(let entryMembers):
                var reader = EntryReader(file: file, key: member.key, keyLine: member.keyLine, isLenient: isLenient)
                entry = .plural(try reader.read(entryMembers))
                contents.problems += reader.problems
                contents.variableLocations[member.key] = reader.variableLocations
            default:
                throw CatalogError(
                    file: file, line: member.value.line, keyPath: member.key,
                    message: "expected a dictionary with \(Self.formatKey) or a string, found \(member.value.value.kindDescription)")
            }
            if contents.entries.updateValue(entry, forKey: member.key) != nil {
                contents.repeatedKeys.append((member.key, member.keyLine, member.keyColumn))
            }
            if let location = SourceLocation(line: member.keyLine, column: member.keyColumn) {
                contents.locations[member.key] = location
            }
        }
        return contents
    }
}

/// Reads one plural entry: its format and its variables.
private struct EntryReader {
    let file: String
    let key: String
    let keyLine: Int?
    /// Record, rather than throw, the problems a linter reports one by one (see
    /// `StringsdictReader.readContents`).
    let isLenient: Bool
    private(set) var problems: [CatalogError] = []
    /// Where each variable's key is written.
    private(set) var variableLocations: [String: SourceLocation] = [:]

    init(file: String, key: String, keyLine: Int?, isLenient: Bool) {
        self.file = file
        self.key = key
        self.keyLine = keyLine
        self.isLenient = isLenient
    }

    /// A string of the entry that may use variables, and where it was written.
    private struct UsingText {
        var text: String
        var keyPath: String
        var line: Int?
    }

    mutating func read(_ members: [PropertyListNode.Member]) throws(CatalogError) -> PluralFormat {
        var format: (text: String, line: Int?)?
        var candidates: [String: PropertyListNode.Member] = [:]
        for member in members {
            switch member.key {
            case StringsdictReader.formatKey:
                guard case .string(let text) = member.value.value else {
                    throw error(line: member.value.line, keyPath: "\(key).\(member.key)", "expected a string, found \(member.value.value.kindDescription)")
                }
                format = (text, member.value.line)
            case "NSStringDeviceSpecificRuleType", "NSStringVariableWidthRuleType":
                throw error(line: member.keyLine, keyPath: key, "\(member.key) entries are not supported (only plural variables are)")
            default:
                candidates[member.key] = member
            }
        }
        guard let format else {
            throw error(line: keyLine, keyPath: key, "the entry has no \(StringsdictReader.formatKey)")
        }

        var variables: [String: PluralVariable] = [:]
        var texts = [UsingText(text: format.text, keyPath: "\(key).\(StringsdictReader.formatKey)", line: format.line)]
        for member in members where candidates[member.key] != nil {
            guard case .dictionary(let variableMembers) = member.value.value else { continue }
            let (variable, forms) = try readVariable(named: member.key, line: member.keyLine, members: variableMembers)
            variables[member.key] = variable
            texts += forms
            if let location = SourceLocation(line: member.keyLine, column: member.keyColumn) {
                variableLocations[member.key] = location
            }
        }

        for text in texts {
            for name in FormatScanner.pluralVariables(in: text.text) where variables[name] == nil {
                if let member = candidates[name] {
                    throw error(
                        line: member.keyLine, keyPath: "\(key).\(name)",
                        "%#@\(name)@ is used as a plural variable, but this is \(member.value.value.kindDescription), not a dictionary")
                }
                try report(error(
                    .undefinedVariable, line: text.line, keyPath: text.keyPath,
                    "%#@\(name)@ is used, but the entry has no dictionary for \"\(name)\""))
            }
        }
        try checkForCycles(variables: variables, line: { candidates[$0]?.keyLine })
        return PluralFormat(format: format.text, variables: variables)
    }

    /// One variable's dictionary, and its forms for the usage check.
    private mutating func readVariable(
        named name: String, line: Int?, members: [PropertyListNode.Member]
    ) throws(CatalogError) -> (PluralVariable, [UsingText]) {
        let path = "\(key).\(name)"
        var specType: String?
        var valueType: String?
        var forms: [PluralCategory: String] = [:]
        var texts: [UsingText] = []
        for member in members {
            let category = PluralCategory(rawValue: member.key)
            guard member.key == StringsdictReader.specTypeKey || member.key == StringsdictReader.valueTypeKey || category != nil else {
                continue  // Apple ignores other keys; so do we.
            }
            guard case .string(let text) = member.value.value else {
                throw error(line: member.value.line, keyPath: "\(path).\(member.key)", "expected a string, found \(member.value.value.kindDescription)")
            }
            if let category {
                forms[category] = text
                texts.append(UsingText(text: text, keyPath: "\(path).\(member.key)", line: member.value.line))
            } else if member.key == StringsdictReader.specTypeKey {
                specType = text
            } else {
                valueType = text
            }
        }
        guard let specType else {
            throw error(line: line, keyPath: path, "the variable has no \(StringsdictReader.specTypeKey) (expected \(StringsdictReader.pluralRuleType))")
        }
        guard specType == StringsdictReader.pluralRuleType else {
            throw error(
                line: line, keyPath: path,
                "\(StringsdictReader.specTypeKey) \"\(specType)\" is not supported (only \(StringsdictReader.pluralRuleType) is)")
        }
        if forms[.other] == nil {
            try report(error(.missingOtherForm, line: line, keyPath: path, "the plural variable has no \"other\" form"))
        }
        return (PluralVariable(valueType: valueType, forms: forms), texts)
    }

    /// Throws `problem`, or records it when reading leniently.
    private mutating func report(_ problem: CatalogError) throws(CatalogError) {
        guard isLenient else { throw problem }
        problems.append(problem)
    }

    /// Refuses variables whose forms lead back to themselves, which binding could only cut off at a depth
    /// limit.
    ///
    /// A depth-first walk with its own stack rather than recursion, keeping the variables on the current
    /// path in a set: a chain of thousands of variables costs time linear in its length, and no stack.
    private func checkForCycles(variables: [String: PluralVariable], line: (String) -> Int?) throws(CatalogError) {
        var finished: Set<String> = []
        for root in variables.keys.sorted() where !finished.contains(root) {
            // The current path: each variable with the variables its forms use that are still to visit
            // (reversed, so the next one is last).
            var path: [(name: String, pending: [String])] = []
            var onPath: Set<String> = []
            func enter(_ name: String) {
                let forms = variables[name]?.forms.sorted { $0.key < $1.key } ?? []
                path.append((name, forms.flatMap { FormatScanner.pluralVariables(in: $0.value) }.reversed()))
                onPath.insert(name)
            }
            enter(root)
            while let top = path.last {
                guard let next = path[path.count - 1].pending.popLast() else {
                    path.removeLast()
                    onPath.remove(top.name)
                    finished.insert(top.name)
                    continue
                }
                if onPath.contains(next) {
                    let start = path.firstIndex { $0.name == next } ?? path.startIndex
                    let circle = (path[start...].map(\.name) + [next]).joined(separator: " → ")
                    throw error(line: line(next), keyPath: "\(key).\(next)", "the plural variables use each other in a circle (\(circle))")
                }
                if !finished.contains(next), variables[next] != nil { enter(next) }
            }
        }
    }

    private func error(_ code: CatalogError.Code = .unreadable, line: Int?, keyPath: String, _ message: String) -> CatalogError {
        CatalogError(code, file: file, line: line, keyPath: keyPath, message: message)
    }
}
