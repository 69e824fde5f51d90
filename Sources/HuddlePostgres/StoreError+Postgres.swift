import HuddleCore
import PostgresNIO

extension StoreError {
    /// The store's error for a failure reported by postgres-nio. The server's own words go into the detail,
    /// for the log (a `PSQLError` describes itself only as "Generic description", which helps nobody reading
    /// a log), and never to clients, as postgres-nio itself keeps them out of its errors' descriptions.
    ///
    /// A server that cannot be reached, is shutting down, or refuses the login is `.unavailable` (the
    /// server then answers 503); anything else the database says is unexpected for a schema this build
    /// migrated itself, so it is `.corrupt` (500). A ``StoreError`` and a cancellation pass through unchanged.
    static func fromPostgres(_ error: any Error) -> any Error {
        switch error {
        case is StoreError, is CancellationError, is UpdateRefusal:
            return error
        case let error as PSQLError:
            return fromPSQL(error)
        case let error as PostgresDecodingError:
            return StoreError(
                .corrupt, Self.unexpectedFailure, detail: "a stored value of column \(error.columnName) cannot be read as \(error.targetType)")
        default:
            // The connection pool's own errors (a circuit breaker tripped after failed connection attempts).
            return StoreError(.unavailable, Self.unreachable, detail: "connecting keeps failing (\(error))")
        }
    }

    private static func fromPSQL(_ error: PSQLError) -> StoreError {
        if error.code == .server, let info = error.serverInfo {
            let state = info[.sqlState] ?? "?????"
            let text = "PostgreSQL: \(info[.message] ?? "error")\(info[.detail].map { " (\($0))" } ?? "") [SQLSTATE \(state)]"
            // 08: connection exceptions; 28: login refused; 3D: no such database; 53: out of resources;
            // 57P0x: the server is shutting down or starting.
            let unavailable = ["08", "28", "3D", "53"].contains(String(state.prefix(2))) || state.hasPrefix("57P0")
            return unavailable
                ? StoreError(.unavailable, Self.unreachable, detail: text) : StoreError(.corrupt, Self.unexpectedFailure, detail: text)
        }
        let reachability: [PSQLError.Code] = [
            .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed, .queryCancelled,
            .sslUnsupported, .failedToAddSSLHandler, .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError,
        ]
        let cause = error.underlying.map { ": \($0)" } ?? ""
        if reachability.contains(error.code) {
            return StoreError(.unavailable, Self.unreachable, detail: "\(error.code)\(cause)")
        }
        return StoreError(.corrupt, Self.unexpectedFailure, detail: "PostgreSQL client error (\(error.code))\(cause)")
    }

    private static let unreachable = "PostgreSQL cannot be reached"
    private static let unexpectedFailure = "the database failed unexpectedly"
}
