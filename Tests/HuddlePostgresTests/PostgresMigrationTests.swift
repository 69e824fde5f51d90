import Foundation
import HuddleCore
@testable import HuddlePostgres
import HuddlePostgresTestSupport
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

    /// A database migrated before the two stores shared their migrations' identifiers has PostgreSQL's
    /// former "001", which made what 001 and 002 make now: it is recorded under those, and only what came
    /// after is applied.
    @Test func aDatabaseOfTheFormerFirstMigrationIsRecordedUnderTheSharedIdentifiers() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            for statement in Self.formerFirstMigration { try await TestDatabase.administer(database, statement) }
            try await TestDatabase.administer(
                database,
                "CREATE TABLE schema_migrations (identifier TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
                "INSERT INTO schema_migrations VALUES ('001 devices, apps, notifications, numbered changes, signing keys', 7)",
                "INSERT INTO devices (token, secret_hash, name, created_at) VALUES ('ab', 'x', 'phone', 0)",
                """
                INSERT INTO apps (device_token, topic, development_language, settings, categories)
                VALUES ('ab', 'com.example.app', 'en', '{}', '[]')
                """,
                "INSERT INTO notifications VALUES ('ab', 'com.example.app', 'a', 1, 0, '{}'), ('ab', 'com.example.app', 'b', 2, 0, '{}')")
            // Every migration after the two the former first one did.
            let later = Array(PostgresMigrations.all.map(\.identifier).dropFirst(2))
            #expect(try await PostgresMigrations.pending(database, logger: TestDatabase.logger) == later)
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) == later)
            #expect(try await TestDatabase.column(database, "SELECT identifier || ' ' || applied_at FROM schema_migrations ORDER BY identifier").prefix(2)
                == ["001 devices, apps, notifications, signing keys 7", "002 numbered changes, app display names 7"])
            #expect(try await TestDatabase.column(database, "SELECT notification_count::text FROM apps") == ["2"])
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) == [])
        }
    }

    /// A database as migration 010 left it keeps its Live Activities' channels: 011 fills the table a broadcast reads its
    /// devices from with the activities stored before, and the store keeps it from then on.
    @Test func migration011FindsTheChannelsOfActivitiesStoredBefore() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            #expect(try await Self.migrate(database, before: "011") == 10)
            let stored = LiveActivity.storedText(StoreConformance.activitiesOnChannels).replacingOccurrences(of: "'", with: "''")
            try await TestDatabase.administer(
                database, "INSERT INTO devices (token, secret_hash, name, created_at, activities) VALUES ('ab', 'x', 'phone', 0, '\(stored)')",
                "INSERT INTO devices (token, secret_hash, name, created_at) VALUES ('cd', 'x', 'phone', 0)")
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger).first == "011 the channels Live Activities listen on")
            #expect(try await TestDatabase.column(database, "SELECT channel_id || ' ' || app || ' ' || device_token FROM activity_channels ORDER BY 1")
                == ["AQ== com.example.other ab", "Ag== com.example.app ab"])
            let listening = try await TestDatabase.withStore(database) { store in
                try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .development)
            }
            #expect(listening == ["ab"])
        }
    }

    /// A database as migration 011 left it keeps everything through 012's integer ids, and the store goes on from there
    /// (``StoreConformance/checkRowsKeptBy012(store:rows:)``).
    @Test func migration012KeepsEveryRowOfADatabaseWrittenBefore() async throws {
        try await TestDatabase.withFresh(migrated: false) { database in
            #expect(try await Self.migrate(database, before: "012") == 11)
            for statement in StoreConformance.rowsWrittenBefore012(bytes: { "decode('\($0)', 'hex')" }) {
                try await TestDatabase.administer(database, statement)
            }
            #expect(try await PostgresMigrations.migrate(database, logger: TestDatabase.logger) == [
                "012 integer ids for devices, apps, notifications and changes", "013 apps found by Firebase installation ID",
                "014 web apps' push subscriptions", "015 delivery receipts",
            ])
            try await TestDatabase.withStore(database) { store in
                try await StoreConformance.checkRowsKeptBy012(store: store, journalsDeliveries: true) {
                    try await TestDatabase.column(
                        database, "SELECT identifier FROM notifications UNION ALL SELECT 'change ' || device_id || ' ' || number FROM changes")
                }
            }
        }
    }

    /// Applies the migrations numbered before `number` as they were shipped, and records them, as a database that an
    /// older Huddle migrated would be.
    /// - Returns: how many were applied.
    static func migrate(_ database: PostgresURL, before number: String) async throws -> Int {
        let earlier = PostgresMigrations.all.prefix { $0.identifier < number }
        for statement in earlier.flatMap(\.statements) { try await TestDatabase.administer(database, statement) }
        try await TestDatabase.administer(database, "CREATE TABLE schema_migrations (identifier TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        for migration in earlier {
            try await TestDatabase.administer(database, "INSERT INTO schema_migrations VALUES ('\(migration.identifier)', 0)")
        }
        return earlier.count
    }

    /// The statements of PostgreSQL's former first migration, as shipped.
    static let formerFirstMigration: [String] = [
        """
        CREATE TABLE devices (
            token TEXT PRIMARY KEY,
            secret_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            last_change BIGINT NOT NULL DEFAULT 0,
            oldest_kept_change BIGINT NOT NULL DEFAULT 1
        )
        """,
        """
        CREATE TABLE apps (
            device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
            topic TEXT NOT NULL,
            display_name TEXT,
            development_language TEXT NOT NULL,
            settings TEXT NOT NULL,
            categories TEXT NOT NULL,
            PRIMARY KEY (device_token, topic)
        )
        """,
        """
        CREATE TABLE localization_files (
            device_token TEXT NOT NULL,
            topic TEXT NOT NULL,
            path TEXT NOT NULL,
            data BYTEA NOT NULL,
            PRIMARY KEY (device_token, topic, path),
            FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE notifications (
            device_token TEXT NOT NULL,
            topic TEXT NOT NULL,
            identifier TEXT NOT NULL,
            sequence BIGINT NOT NULL,
            delivered_at BIGINT NOT NULL,
            content TEXT NOT NULL,
            PRIMARY KEY (device_token, topic, identifier),
            FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE
        )
        """,
        """
        CREATE TABLE changes (
            device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
            number BIGINT NOT NULL,
            kind TEXT NOT NULL,
            topic TEXT NOT NULL,
            identifiers TEXT NOT NULL,
            PRIMARY KEY (device_token, number)
        )
        """,
        """
        CREATE TABLE unregistered_devices (
            token TEXT PRIMARY KEY,
            unregistered_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE signing_keys (
            key_id TEXT PRIMARY KEY,
            team_id TEXT NOT NULL,
            public_key TEXT NOT NULL,
            topics TEXT NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE INDEX notifications_by_sequence ON notifications (device_token, sequence)
        """,
    ]

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
