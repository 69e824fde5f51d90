/// A problem that stops a localization file from being read: where it is, and what is wrong.
///
/// The description reads like a compiler diagnostic, so that tools can print it as it is:
/// `de.lproj/Localizable.stringsdict:14: NOTIFICATION_SUMMARY.notifications: the plural variable has no "other" form`.
public struct CatalogError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of problem this is, for callers that treat some apart (a linter reports them under their
    /// own rules). Extensible: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let name: String

        /// The file cannot be read as what it claims to be: bad syntax, a value of the wrong type, a limit.
        public static let unreadable = Code(name: "unreadable")
        /// A plural variable or variation without its required `other` form.
        public static let missingOtherForm = Code(name: "missingOtherForm")
        /// A `%#@name@` whose entry defines no variable `name`.
        public static let undefinedVariable = Code(name: "undefinedVariable")

        public var description: String { name }
    }

    public var code: Code
    /// The file as the caller named it, usually a path relative to the folder being loaded.
    public var file: String
    /// The 1-based line, when the reader knows it.
    public var line: Int?
    /// The 1-based column in Unicode scalars, when the reader knows it (only with a line).
    public var column: Int?
    /// The entry the problem is in, as dotted keys (`NOTIFICATION_SUMMARY.notifications`, or
    /// `strings.GREETING.localizations.de` for String Catalogs), when the problem is inside one.
    public var keyPath: String?
    /// What is wrong, or what was expected, in lower case and without a final period.
    public var message: String

    public init(
        _ code: Code = .unreadable, file: String, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, message: String
    ) {
        self.code = code
        self.file = file
        self.line = line
        self.column = line == nil ? nil : column
        self.keyPath = keyPath
        self.message = message
    }

    public var description: String {
        CatalogError.diagnostic(
            file: file, line: line, column: column, severity: nil, keyPath: keyPath, message: message)
    }

    /// The `file:line:column: [severity: ]key.path: message` text shared with ``CatalogWarning``.
    static func diagnostic(
        file: String, line: Int?, column: Int?, severity: String?, keyPath: String?, message: String
    ) -> String {
        var text = file
        if let line {
            text += ":\(line)"
            if let column { text += ":\(column)" }
        }
        text += ": "
        if let severity { text += "\(severity): " }
        if let keyPath, !keyPath.isEmpty { text += "\(keyPath): " }
        return text + message
    }
}
