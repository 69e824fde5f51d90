import Foundation
import HuddlePostgres
import HuddlePostgresTestSupport
import HuddleTestSupport
import Testing

/// `huddle migrate` and `huddle serve` against PostgreSQL, run as real processes.
@Suite struct PostgresCommandTests {
    static let migrations = PostgresMigrations.all.map(\.identifier)

    @Test func migrateListsThenAppliesThenHasNothingToDo() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            let huddle = try CommandRunner.huddle()
            let url = "postgres://\(database.user)@\(database.host):\(database.port)/\(database.database)?sslmode=disable"
            let dryRun = try await huddle.run(["migrate", "--database", url, "--dry-run"])
            #expect(dryRun.status == 0, "\(dryRun.standardError)")
            #expect(dryRun.standardOutput == Self.migrations.map { "pending \($0)\n" }.joined() + "\(Self.migrations.count) migrations pending in \(url)\n")

            let applied = try await huddle.run(["migrate"], environment: ["HUDDLE_DATABASE_URL": url])
            #expect(applied.status == 0, "\(applied.standardError)")
            #expect(applied.standardOutput == Self.migrations.map { "applied \($0)\n" }.joined() + "\(Self.migrations.count) migrations applied to \(url)\n")

            let again = try await huddle.run(["migrate", "--database", url])
            #expect(again.standardOutput == "\(url) is up to date\n")
        }
    }

    @Test func serveAndMigrateRefuseANewerDatabase() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.administer(
                database, "INSERT INTO schema_migrations (identifier, applied_at) VALUES ('002 from the future', 0)")
            let huddle = try CommandRunner.huddle()
            let url = "postgres://\(database.user)@\(database.host):\(database.port)/\(database.database)?sslmode=disable"
            for arguments in [["serve", "--port", "0", "--database", url], ["migrate", "--database", url, "--dry-run"]] {
                let output = try await huddle.run(arguments)
                #expect(output.status != 0, "\(arguments[0]) accepted a newer database")
                #expect(output.standardError.contains(
                    "the database was written by a newer Huddle (unknown migrations: 002 from the future); upgrade Huddle"))
            }
        }
    }
}
