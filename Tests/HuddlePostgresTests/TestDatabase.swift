import Foundation
import HuddleCore
import HuddlePostgres
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server the tests run against, and a fresh database on it for each test.
///
/// The server comes from `HUDDLE_TEST_POSTGRES_URL` (scripts/test starts a throwaway one). Without it the
/// tests fail rather than skip, so that a run that never touched PostgreSQL cannot pass for one that did.
enum TestDatabase {
    static let logger = Logger(label: "huddle-postgres-tests")

    struct ServerMissing: Error, CustomStringConvertible {
        var description: String {
            """
            HUDDLE_TEST_POSTGRES_URL is not set, and the PostgreSQL tests need a server: start a throwaway one with \
            `eval "$(scripts/postgres start)"` (stop it with `scripts/postgres stop "$HUDDLE_TEST_POSTGRES_DIR"`), \
            or run scripts/test, which does both
            """
        }
    }

    /// The server's URL, naming a database that the tests may connect to and create others from.
    static func server() throws -> PostgresURL {
        guard let text = ProcessInfo.processInfo.environment["HUDDLE_TEST_POSTGRES_URL"], !text.isEmpty else { throw ServerMissing() }
        return try PostgresURL(text)
    }

    /// Runs `body` with a new, empty database (migrated unless asked not to), dropped afterwards.
    static func withFresh<Value: Sendable>(
        migrated: Bool = true, _ body: (PostgresURL) async throws -> Value
    ) async throws -> Value {
        let server = try server()
        var database = server
        database.database = "huddle_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        // A database name cannot be a bound parameter; this one is made of hex digits here.
        try await administer(server, "CREATE DATABASE \(database.database)")
        do {
            if migrated { try await PostgresMigrations.migrate(database, logger: logger) }
            let value = try await body(database)
            try? await administer(server, "DROP DATABASE \(database.database) WITH (FORCE)")
            return value
        } catch {
            try? await administer(server, "DROP DATABASE \(database.database) WITH (FORCE)")
            throw error
        }
    }

    /// Runs `body` with a store of `database` that is running (its pool and its listener).
    static func withStore<Value: Sendable>(
        _ database: PostgresURL, configuration: PostgresNotificationStore.Configuration = testConfiguration(),
        _ body: (PostgresNotificationStore) async throws -> Value
    ) async throws -> Value {
        let store = PostgresNotificationStore(database: database, configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            return try await body(store)
        }
    }

    static func testConfiguration() -> PostgresNotificationStore.Configuration {
        var configuration = PostgresNotificationStore.Configuration()
        configuration.reconnectDelay = .milliseconds(100)
        configuration.maximumConnections = 8
        return configuration
    }

    /// Runs statements (not values: SQL text this file wrote) on `database`.
    static func administer(_ database: PostgresURL, _ statements: String...) async throws {
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        defer { Task { try? await connection.close() } }
        for statement in statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    /// The first column of each row of a query on `database`, as text.
    static func column(_ database: PostgresURL, _ query: String) async throws -> [String] {
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        defer { Task { try? await connection.close() } }
        return try await connection.query(PostgresQuery(unsafeSQL: query), logger: logger).collect().map { try $0.decode(String.self) }
    }
}

struct TimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Collects what a stream of notices delivers, so that a test can wait for what it expects.
actor NoticeRecorder {
    private(set) var notices: [ChangeNotice] = []
    private(set) var isFinished = false

    static func recording(_ stream: AsyncStream<ChangeNotice>?) throws -> NoticeRecorder {
        let stream = try #require(stream, "a PostgreSQL store always has notices from other servers")
        let recorder = NoticeRecorder()
        Task {
            for await notice in stream { await recorder.append(notice) }
            await recorder.finish()
        }
        return recorder
    }

    private func append(_ notice: ChangeNotice) { notices.append(notice) }
    private func finish() { isFinished = true }

    /// Waits until the notices so far satisfy `condition`.
    /// - Throws: when they do not within `timeout`, naming what was awaited and what came.
    @discardableResult
    func wait(
        for what: String, timeout: Duration = .seconds(15), until condition: ([ChangeNotice], Bool) -> Bool
    ) async throws -> [ChangeNotice] {
        let deadline = ContinuousClock.now + timeout
        while !condition(notices, isFinished) {
            guard ContinuousClock.now < deadline else {
                throw TimedOut(description: "timed out waiting for \(what); received \(notices), finished: \(isFinished)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return notices
    }

    /// Waits for the notices to reach `count`.
    @discardableResult
    func wait(forCount count: Int, _ what: String) async throws -> [ChangeNotice] {
        try await wait(for: what) { notices, _ in notices.count >= count }
    }
}
