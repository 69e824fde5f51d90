/// A PostgreSQL connection URL that cannot be used: which part is wrong, and why.
///
/// The description repeats the URL with its password masked, so that it can go to a log or a terminal.
public struct PostgresURLError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part of the URL at fault.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        public static let scheme = Code("scheme")
        public static let user = Code("user")
        public static let host = Code("host")
        public static let port = Code("port")
        public static let database = Code("database")
        public static let parameter = Code("parameter")
        public static let encoding = Code("encoding")
    }

    public var code: Code
    /// The URL as given, its password replaced by `***`.
    public var url: String
    public var message: String

    public init(_ code: Code, url: String, _ message: String) {
        self.code = code
        self.url = url
        self.message = message
    }

    public var description: String {
        "invalid PostgreSQL URL \(url): \(message) (expected postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable|prefer|require|verify-full)"
    }
}
