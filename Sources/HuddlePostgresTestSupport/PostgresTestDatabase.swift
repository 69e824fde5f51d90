import Foundation
import HuddleCore
public import HuddlePostgres
public import Logging
import PostgresNIO

/// The PostgreSQL server the tests run against, and a fresh database on it for each test.
///
/// The server comes from `HUDDLE_TEST_POSTGRES_URL` (scripts/test starts a throwaway one). Without it the
/// tests fail rather than skip, so that a run that never touched PostgreSQL cannot pass for one that did.
public enum TestDatabase {
    /// Warnings and worse: the tests' own stores starting and stopping are not news in a test run.
    public static let logger: Logger = {
        var logger = Logger(label: "huddle-postgres-tests")
        logger.logLevel = .warning
        return logger
    }()

    public struct ServerMissing: Error, CustomStringConvertible {
        public var description: String {
            """
            HUDDLE_TEST_POSTGRES_URL is not set, and the PostgreSQL tests need a server: start a throwaway one with \
            `eval "$(scripts/postgres start)"` (stop it with `scripts/postgres stop "$HUDDLE_TEST_POSTGRES_DIR"`), \
            or run scripts/test, which does both
            """
        }
    }

    /// The server's URL, naming a database that the tests may connect to and create others from.
    public static func server() throws -> PostgresURL {
        guard let text = ProcessInfo.processInfo.environment["HUDDLE_TEST_POSTGRES_URL"], !text.isEmpty else { throw ServerMissing() }
        return try PostgresURL(text)
    }

    /// Runs `body` with a new, empty database (migrated unless asked not to), dropped afterwards. At most
    /// ``DatabaseSlots/count`` at once: each test's store holds a pool, a listener and an administering connection, and the
    /// tests run in parallel against one server of 200 connections (scripts/postgres).
    public static func withFresh<Value: Sendable>(
        migrated: Bool = true, _ body: (PostgresURL) async throws -> Value
    ) async throws -> Value {
        await DatabaseSlots.shared.take()
        do {
            let value = try await withFreshDatabase(migrated: migrated, body)
            await DatabaseSlots.shared.give()
            return value
        } catch {
            await DatabaseSlots.shared.give()
            throw error
        }
    }

    private static func withFreshDatabase<Value: Sendable>(
        migrated: Bool, _ body: (PostgresURL) async throws -> Value
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
    public static func withStore<Value: Sendable>(
        _ database: PostgresURL, configuration: PostgresNotificationStore.Configuration = testConfiguration(), logger: Logger = logger,
        _ body: (PostgresNotificationStore) async throws -> Value
    ) async throws -> Value {
        let store = PostgresNotificationStore(database: database, configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            defer { group.cancelAll() }
            return try await body(store)
        }
    }

    public static func testConfiguration() -> PostgresNotificationStore.Configuration {
        var configuration = PostgresNotificationStore.Configuration()
        configuration.reconnectDelay = .milliseconds(100)
        configuration.maximumConnections = 4
        // Often enough that every notice test also checks the listening connection while notices flow.
        configuration.heartbeatInterval = .milliseconds(50)
        configuration.heartbeatTimeout = .seconds(1)
        return configuration
    }

    /// Runs statements (not values: SQL text this file wrote) on `database`.
    public static func administer(_ database: PostgresURL, _ statements: String...) async throws {
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        defer { Task { try? await connection.close() } }
        for statement in statements {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
    }

    /// The first column of each row of a query on `database`, as text.
    public static func column(_ database: PostgresURL, _ query: String) async throws -> [String] {
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        defer { Task { try? await connection.close() } }
        return try await connection.query(PostgresQuery(unsafeSQL: query), logger: logger).collect().map { try $0.decode(String.self) }
    }
}

/// The tests' fresh databases in use at once, bounded: a test past the bound waits for one to be dropped.
actor DatabaseSlots {
    static let shared = DatabaseSlots()
    /// Each test holds up to about six connections (a pool of 4, the listener, an administering one): 24 of them stay well
    /// inside the server's 200, beside the tests that connect on their own.
    static let count = 24

    private var free = count
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
