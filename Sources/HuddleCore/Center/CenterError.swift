/// A request the center refuses: what is wrong, and the app, category or notification it concerns.
public struct CenterError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        case unknownApp
        case invalidCategory
        /// A localized string that could never be shown within the limits (see ``PluralFormat/checkExpansion()``).
        case invalidLocalization
        case invalidRequest
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    static func unknownApp(_ app: String) -> CenterError {
        CenterError(.unknownApp, "unknown app \"\(app)\": register it before delivering to it")
    }
}
