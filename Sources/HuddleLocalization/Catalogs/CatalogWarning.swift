/// Something worth telling the author of localization files that does not stop them from loading, such
/// as one key defined in two tables of a language.
public struct CatalogWarning: CustomStringConvertible, Sendable, Hashable {
    /// The file the warning is about, as the caller named it.
    public var file: String
    /// The 1-based line, when known.
    public var line: Int?
    /// The key the warning is about, when there is one.
    public var keyPath: String?
    public var message: String

    public init(file: String, line: Int? = nil, keyPath: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.message = message
    }

    /// Reads like ``CatalogError/description`` with `warning: ` after the location:
    /// `de.lproj/Extra.strings: warning: GREETING: also defined in de.lproj/Localizable.strings, which is used`.
    public var description: String {
        CatalogError.diagnostic(
            file: file, line: line, column: nil, severity: "warning", keyPath: keyPath, message: message)
    }
}
