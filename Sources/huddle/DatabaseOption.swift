import ArgumentParser
import Foundation
import HuddleCore
import HuddlePostgres
import HuddleSQLite
import Logging

/// Where a command finds the server's store: `--database`, else `$HUDDLE_DATABASE_URL`, else
/// `huddle.sqlite` in the current directory.
struct DatabaseOption: ParsableArguments {
    enum Location {
        case memory
        case sqlite(path: String)
        case postgres(PostgresURL)
    }

    @Option(help: ArgumentHelp(
        "A SQLite file, a PostgreSQL URL (postgres://USER:PASSWORD@HOST:PORT/DATABASE), or \"memory\".",
        discussion: "Default: $HUDDLE_DATABASE_URL, else huddle.sqlite."))
    var database: String?

    func validate() throws {
        _ = try location()
    }

    func location() throws -> Location {
        let text = database ?? ProcessInfo.processInfo.environment["HUDDLE_DATABASE_URL"] ?? "huddle.sqlite"
        if text == "memory" { return .memory }
        guard PostgresURL.names(text) else { return .sqlite(path: text) }
        do {
            return .postgres(try PostgresURL(text))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// Runs `body` with the store, migrated, for a command's one-off work (a PostgreSQL store runs its
    /// connections only meanwhile).
    func withStore<Value: Sendable>(logger: Logger, _ body: (any NotificationStore) async throws -> Value) async throws -> Value {
        switch try location() {
        case .memory:
            throw ValidationError("an in-memory store lives only inside huddle serve; give a SQLite file or a PostgreSQL URL")
        case .sqlite(let path):
            return try await body(SQLiteNotificationStore(path: path))
        case .postgres(let url):
            try await PostgresMigrations.migrate(url, logger: logger)
            let store = PostgresNotificationStore(database: url, logger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                return try await body(store)
            }
        }
    }
}
