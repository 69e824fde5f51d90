import Foundation
import GRDB
import HuddlePostgres
import HuddleSQLite
import HuddlePostgresTestSupport
import HuddleTestSupport
import Testing

/// The two stores keep the same things: SQLite's and PostgreSQL's schemas, as their migrations make them,
/// hold the same tables with the same columns (types differ: BIGINT milliseconds, BYTEA, as PostgresMigrations
/// says). A column added to one store and not the other fails here.
@Suite struct SchemaParityTests {
    /// Each store's record of its own migrations, which is no data of Huddle's.
    static let bookkeeping: Set<String> = ["grdb_migrations", "schema_migrations"]

    @Test func bothStoresKnowTheSameMigrationsByTheSameIdentifiers() throws {
        let directory = try TemporaryDirectory()
        let sqlite = try SQLiteMigrations.pending(path: directory.url.appendingPathComponent("none.sqlite").path)
        #expect(sqlite == PostgresMigrations.all.map(\.identifier))
        #expect(sqlite.count >= 3)
    }

    @Test func sqliteAndPostgreSQLHoldTheSameTablesAndColumns() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.url.appendingPathComponent("schema.sqlite").path
        try SQLiteMigrations.migrate(path: path)
        let sqlite: Set<String> = try await DatabaseQueue(path: path).read { db in
            var columns: Set<String> = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables where !Self.bookkeeping.contains(table) {
                for row in try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) {
                    columns.insert("\(table).\(row["name"] as String)")
                }
            }
            return columns
        }
        let postgres = try await TestDatabase.withFresh { database in
            try await TestDatabase.column(
                database,
                "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = 'public'")
        }.filter { !Self.bookkeeping.contains(String($0.prefix { $0 != "." })) }
        #expect(!sqlite.isEmpty)
        #expect(sqlite.subtracting(postgres).sorted() == [], "columns only SQLite has")
        #expect(Set(postgres).subtracting(sqlite).sorted() == [], "columns only PostgreSQL has")
    }
}
