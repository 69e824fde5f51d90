import HuddleCore
import HuddlePostgres
import HuddleTestSupport
import Testing

@Suite struct PostgresMigrationTests {
    static let everyMigration = PostgresMigrations.all.map(\.identifier)

    @Test func anEmptyDatabaseHasEveryMigrationPendingAndGetsThemOnce() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            let pending = try await PostgresMigrations.pending(database, logger: TestDatabase.logger)
            #expect(pending == Self.everyMigration)
            // Listing creates nothing.
            #expect(try await TestDatabase.column(database, "SELECT count(*)::text FROM pg_tables WHERE schemaname = 'public'") == ["0"])
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) == Self.everyMigration)
            #expect(try await PostgresMigrations.pending(database, logger: TestDatabase.logger) == [])
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) == [])
        }
    }

    /// Servers starting together: the advisory lock lets one apply the migrations, the others find none.
    @Test func serversMigratingAtOnceApplyEachMigrationOnce() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            let results = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 1...4 { group.addTask { try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.filter { !$0.isEmpty } == [Self.everyMigration])
            #expect(try await TestDatabase.column(database, "SELECT identifier FROM schema_migrations ORDER BY identifier") == Self.everyMigration)
        }
    }

    @Test func refusesADatabaseFromANewerVersion() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.administer(
                database, "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('999 from the future', 0)")
            for attempt in ["migrate", "pending"] {
                await #expect {
                    if attempt == "migrate" {
                        try await PostgresMigrations.migrate(database, logger: TestDatabase.logger)
                    } else {
                        _ = try await PostgresMigrations.pending(database, logger: TestDatabase.logger)
                    }
                } throws: { error in
                    (error as? StoreError)?.code == .corrupt
                        && "\(error)" == "the database was written by a newer Huddle (unknown migrations: 999 from the future); upgrade Huddle"
                }
            }
        }
    }

    /// A server that refuses at once is reported at once, in its own words (a pool would retry for a minute).
    @Test func aMissingDatabaseIsUnavailable() async throws {
        var database = try TestDatabase.server()
        database.database = "huddle_test_never_created"
        await #expect {
            try await PostgresMigrations.migrate(database, logger: TestDatabase.logger)
        } throws: { error in
            (error as? StoreError)?.code == .unavailable && "\(error)".contains("database \"huddle_test_never_created\" does not exist")
        }
        database.port = 1
        await #expect {
            _ = try await PostgresMigrations.pending(database, logger: TestDatabase.logger)
        } throws: { error in
            (error as? StoreError)?.code == .unavailable && "\(error)".contains("cannot be reached")
        }
    }
}
