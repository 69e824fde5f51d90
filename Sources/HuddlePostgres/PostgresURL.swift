import Foundation
public import PostgresNIO

/// Where a PostgreSQL database is and how to log in to it, from a connection URL as libpq writes them:
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=require`.
///
/// `postgresql://` works too; the port defaults to 5432 and the password may be left out (a server that
/// trusts the user). Parts may be percent-encoded (a password with `@` in it). The only query parameter is
/// `sslmode`, with libpq's meanings: `disable`, `prefer` (the default: TLS when the server offers it),
/// `require` (TLS or nothing, the certificate unchecked) and `verify-full` (TLS with a certificate that is
/// valid for the host).
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, Hashable, CaseIterable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var sslMode: SSLMode

    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String, sslMode: SSLMode = .prefer) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
    }

    /// Whether `text` is meant as a PostgreSQL URL (rather than, say, a SQLite file name): its scheme says so.
    public static func names(_ text: String) -> Bool {
        let lowercased = text.lowercased()
        return lowercased.hasPrefix("postgres://") || lowercased.hasPrefix("postgresql://")
    }

    /// Parses a connection URL.
    /// - Throws: ``PostgresURLError`` naming the part that is missing or malformed.
    public init(_ text: String) throws(PostgresURLError) {
        let masked = Self.masked(text)
        func failure(_ code: PostgresURLError.Code, _ message: String) -> PostgresURLError {
            PostgresURLError(code, url: masked, message)
        }
        func decoded(_ part: Substring, _ code: PostgresURLError.Code, _ what: String) throws(PostgresURLError) -> String {
            guard let value = String(part).removingPercentEncoding else { throw failure(.encoding, "the \(what) has a malformed %-escape") }
            return value
        }

        guard let schemeEnd = text.range(of: "://") else {
            throw failure(.scheme, "it does not start with postgres:// or postgresql://")
        }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw failure(.scheme, "the scheme is \"\(scheme)\", not postgres or postgresql")
        }
        var rest = text[schemeEnd.upperBound...]
        var query: Substring = ""
        if let questionMark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: questionMark)...]
            rest = rest[..<questionMark]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }

        // The authority: USER[:PASSWORD]@HOST[:PORT]. A password may hold an escaped @, so split at the last one.
        guard let at = rest.lastIndex(of: "@") else {
            throw failure(.user, "it names no user (USER@ before the host)")
        }
        let userInfo = rest[..<at]
        var hostAndPort = rest[rest.index(after: at)...]
        if let colon = userInfo.firstIndex(of: ":") {
            user = try decoded(userInfo[..<colon], .user, "user")
            password = try decoded(userInfo[userInfo.index(after: colon)...], .user, "password")
        } else {
            user = try decoded(userInfo, .user, "user")
            password = nil
        }
        guard !user.isEmpty else { throw failure(.user, "the user name is empty") }

        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw failure(.host, "the IPv6 address has no closing ]") }
            host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            let afterHost = hostAndPort[hostAndPort.index(after: close)...]
            if !afterHost.isEmpty {
                guard afterHost.hasPrefix(":") else { throw failure(.host, "unexpected \"\(afterHost)\" after the IPv6 address") }
                portText = afterHost.dropFirst()
            }
        } else {
            if let colon = hostAndPort.lastIndex(of: ":") {
                portText = hostAndPort[hostAndPort.index(after: colon)...]
                hostAndPort = hostAndPort[..<colon]
            }
            host = try decoded(hostAndPort, .host, "host")
        }
        guard !host.isEmpty else { throw failure(.host, "it names no host") }
        if let portText {
            guard let number = Int(portText), (1...65_535).contains(number) else {
                throw failure(.port, "the port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = number
        } else {
            port = 5432
        }

        database = try decoded(path, .database, "database name")
        guard !database.isEmpty else { throw failure(.database, "it names no database (/DATABASE after the host)") }
        guard !database.contains("/") else { throw failure(.database, "the database name \"\(database)\" contains a /") }

        sslMode = .prefer
        for parameter in query.split(separator: "&") where !parameter.isEmpty {
            let pair = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try decoded(pair[0], .parameter, "parameter name")
            let value = pair.count > 1 ? try decoded(pair[1], .parameter, "value of \(name)") : ""
            guard name == "sslmode" else { throw failure(.parameter, "unknown parameter \"\(name)\" (only sslmode is understood)") }
            guard let mode = SSLMode(rawValue: value) else {
                throw failure(
                    .parameter,
                    "sslmode \"\(value)\" is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            sslMode = mode
        }
    }

    /// The URL with its password masked: what logs and messages show.
    public var description: String {
        let credentials = password == nil ? Self.escaped(user) : "\(Self.escaped(user)):***"
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(hostPart):\(port)/\(Self.escaped(database))?sslmode=\(sslMode.rawValue)"
    }

    /// The configuration of a `PostgresClient` that connects here.
    public var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS
        var unverified = TLSConfiguration.makeClientConfiguration()
        // libpq's prefer and require encrypt without checking the certificate; verify-full checks it.
        unverified.certificateVerification = .none
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(unverified)
        case .require: tls = .require(unverified)
        case .verifyFull: tls = .require(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The configuration of a single `PostgresConnection` here, for one-off work.
    /// - Throws: when the TLS context cannot be made.
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch sslMode {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: unverified))
        case .require: tls = .require(try NIOSSLContext(configuration: unverified))
        case .verifyFull: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    private static func escaped(_ part: String) -> String {
        part.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed.subtracting(CharacterSet(charactersIn: ":@/?#[]"))) ?? part
    }

    /// `text` with whatever stands between the user's colon and the last `@` replaced by `***`.
    private static func masked(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
        let authority = text[schemeEnd.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<authority.index(after: colon)]) + "***" + String(text[at...])
    }
}
