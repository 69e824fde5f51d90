import GRDB
import HuddleCore

extension StoreError {
    /// The store's error for a failure reported by SQLite, as PostgreSQL's are mapped: a database that is
    /// busy, locked, full or cannot be opened or written is `.unavailable` (503); a file that is not a
    /// database, or is damaged, and anything else unexpected for a schema this build migrated itself is
    /// `.corrupt` (500). SQLite's own words go into the log detail, never to clients. A ``StoreError`` and a
    /// cancellation pass through unchanged.
    static func fromSQLite(_ error: any Error) -> any Error {
        switch error {
        case is StoreError, is CancellationError, is UpdateRefusal:
            return error
        case let error as DatabaseError:
            let detail = "SQLite: \(error.message ?? "error") [\(error.resultCode)]"
            switch error.resultCode.primaryResultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_FULL, .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_NOMEM:
                return StoreError(.unavailable, "the database cannot be written now", detail: detail)
            default:
                return StoreError(.corrupt, "the database failed unexpectedly", detail: detail)
            }
        default:
            return StoreError(.corrupt, "the database failed unexpectedly", detail: "SQLite: \(error)")
        }
    }
}
