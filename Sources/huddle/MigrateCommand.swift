import ArgumentParser
import HuddlePostgres
import HuddleSQLite
import Logging

struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring a database's schema up to this version of Huddle.",
        discussion: """
            Applies the pending schema migrations of a SQLite file or a PostgreSQL database and prints them. \
            huddle serve applies them too when it starts; this lets an operator do it first, or see what would \
            change with --dry-run. A database written by a newer Huddle is refused.
            """
    )

    @OptionGroup var database: DatabaseOption

    @Flag(help: "Print the pending migrations without applying them.")
    var dryRun = false

    func run() async throws {
        try await reportingFailures(migrate)
    }

    private func migrate() async throws {
        var logger = Logger(label: "huddle")
        logger.logLevel = .warning
        let migrations: [String]
        let name: String
        switch try database.location() {
        case .memory:
            throw ValidationError("an in-memory store has no schema to migrate")
        case .sqlite(let path):
            name = path
            do {
                migrations = dryRun ? try SQLiteMigrations.pending(path: path) : try SQLiteMigrations.migrate(path: path)
            } catch {
                throw CommandFailure.store(error, at: path)
            }
        case .postgres(let url):
            name = "\(url)"
            do {
                migrations = dryRun
                    ? try await PostgresMigrations.pending(url, logger: logger) : try await PostgresMigrations.migrate(url, logger: logger)
            } catch {
                throw CommandFailure.store(error, at: name)
            }
        }
        for migration in migrations { print("\(dryRun ? "pending" : "applied") \(migration)") }
        if migrations.isEmpty {
            print("\(name) is up to date")
        } else {
            print("\(migrations.count) migration\(migrations.count == 1 ? "" : "s") \(dryRun ? "pending in" : "applied to") \(name)")
        }
    }
}
