import Foundation
import HuddleCore
public import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations recorded in `schema_migrations`.
///
/// A shipped migration is never edited: changes come as new ones, appended. The migrations are SQLite's
/// (`HuddleSQLite`'s), by the same identifiers, and make the same tables, with BIGINT milliseconds for
/// dates, BYTEA for files and JSON kept as TEXT, so that a stored notification reads back byte for byte.
public enum PostgresMigrations {
    /// One step of the schema.
    public struct Migration: Sendable {
        /// "001 …": the order, then what it does. Stored in `schema_migrations` once applied.
        public let identifier: String
        /// Run one after another in the migration's transaction (the extended query protocol takes one
        /// statement at a time).
        let statements: [String]
    }

    /// Migrations shipped under identifiers of their own before the two stores shared theirs, and the
    /// identifiers of the migrations that do what they did: a database that has one is migrated as far as
    /// those, and its record is renamed to them.
    static let formerIdentifiers: [String: [String]] = [
        "001 devices, apps, notifications, numbered changes, signing keys": [
            "001 devices, apps, notifications, signing keys", "002 numbered changes, app display names",
        ]
    ]

    /// Every migration this build knows, in order.
    public static let all: [Migration] = [
        Migration(identifier: "001 devices, apps, notifications, signing keys", statements: [
            """
            CREATE TABLE devices (
                token TEXT PRIMARY KEY,
                secret_hash TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE apps (
                device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                topic TEXT NOT NULL,
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
            "CREATE INDEX notifications_by_sequence ON notifications (device_token, sequence)",
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
        ]),
        Migration(identifier: "002 numbered changes, app display names", statements: [
            "ALTER TABLE devices ADD COLUMN last_change BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE devices ADD COLUMN oldest_kept_change BIGINT NOT NULL DEFAULT 1",
            "ALTER TABLE apps ADD COLUMN display_name TEXT",
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
        ]),
        Migration(identifier: "003 notification counts and order per app", statements: [
            // As SQLite's 003 says: each app's count beside it, and its notifications in delivery order.
            "ALTER TABLE apps ADD COLUMN notification_count BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE apps SET notification_count = (
                SELECT count(*) FROM notifications
                WHERE notifications.device_token = apps.device_token AND notifications.topic = apps.topic)
            """,
            "DROP INDEX notifications_by_sequence",
            "CREATE INDEX notifications_by_app_sequence ON notifications (device_token, topic, sequence)",
        ]),
        Migration(identifier: "004 device events in the change journal", statements: [
            // As SQLite's 004 says: an event lives in the journal itself.
            "ALTER TABLE changes ADD COLUMN detail TEXT"
        ]),
        Migration(identifier: "005 Live Activities and their declarations", statements: [
            // As SQLite's 005 says: a device's activities as one JSON array beside it, an app's types beside it.
            "ALTER TABLE devices ADD COLUMN activities TEXT",
            "ALTER TABLE apps ADD COLUMN activity_types TEXT",
        ]),
        Migration(identifier: "006 environments of devices and keys", statements: [
            // As SQLite's 006 says: devices registered before were development ones; older keys serve both.
            "ALTER TABLE devices ADD COLUMN environment TEXT NOT NULL DEFAULT 'development'",
            "ALTER TABLE signing_keys ADD COLUMN environments TEXT",
        ]),
        Migration(identifier: "007 broadcast channels", statements: [
            // As SQLite's 007 says: a channel of an app in one environment, its latest broadcast beside it.
            """
            CREATE TABLE broadcast_channels (
                id TEXT PRIMARY KEY,
                app TEXT NOT NULL,
                environment TEXT NOT NULL,
                storage_policy INTEGER NOT NULL,
                created_at BIGINT NOT NULL,
                last_message TEXT
            )
            """,
            "CREATE INDEX broadcast_channels_by_app ON broadcast_channels (app, environment, created_at)",
        ]),
        Migration(identifier: "008 device settings", statements: [
            // As SQLite's 008 says: the person's settings of a device as one JSON object beside it.
            "ALTER TABLE devices ADD COLUMN settings TEXT"
        ]),
        Migration(identifier: "009 held and silenced notifications, summaries, app capabilities", statements: [
            // As SQLite's 009 says: where the settings sent each notification, a device's latest summary, an app's
            // capabilities; held notifications found by a partial index.
            "ALTER TABLE notifications ADD COLUMN held INTEGER",
            "ALTER TABLE notifications ADD COLUMN silenced_by TEXT",
            "CREATE INDEX notifications_held ON notifications (device_token, delivered_at) WHERE held = 1",
            "ALTER TABLE devices ADD COLUMN summary TEXT",
            "ALTER TABLE apps ADD COLUMN capabilities TEXT",
        ]),
        Migration(identifier: "010 Android devices, FCM registration tokens, service accounts, topic subscriptions", statements: [
            // As SQLite's 010 says: a device's platform, each app's registration token (unique) and Firebase facts,
            // service accounts' keys, and topic subscriptions that go with their token's app.
            "ALTER TABLE devices ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios'",
            "ALTER TABLE devices ADD COLUMN android_version INTEGER",
            "ALTER TABLE apps ADD COLUMN fcm_token TEXT",
            "ALTER TABLE apps ADD COLUMN firebase TEXT",
            "CREATE UNIQUE INDEX apps_by_fcm_token ON apps (fcm_token)",
            """
            CREATE TABLE service_accounts (
                key_id TEXT PRIMARY KEY NOT NULL,
                project TEXT NOT NULL,
                client_email TEXT NOT NULL,
                public_key TEXT NOT NULL,
                created_at BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE topic_subscriptions (
                fcm_token TEXT NOT NULL REFERENCES apps (fcm_token) ON DELETE CASCADE,
                project TEXT NOT NULL,
                topic TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                PRIMARY KEY (project, topic, fcm_token)
            )
            """,
            "CREATE INDEX topic_subscriptions_by_token ON topic_subscriptions (fcm_token)",
        ]),
        Migration(identifier: "011 the channels Live Activities listen on", statements: [
            // As SQLite's 011 says: which devices' activities listen on a channel, written with the activities (no
            // identifier longer than a channel's).
            """
            CREATE TABLE activity_channels (
                channel_id TEXT NOT NULL,
                app TEXT NOT NULL,
                device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                PRIMARY KEY (channel_id, app, device_token)
            )
            """,
            "CREATE INDEX activity_channels_by_device ON activity_channels (device_token)",
            """
            INSERT INTO activity_channels (channel_id, app, device_token)
                SELECT DISTINCT activity->>'channelID', activity->>'app', devices.token
                FROM devices, jsonb_array_elements(devices.activities::jsonb) AS activity
                WHERE devices.activities IS NOT NULL AND activity->>'app' IS NOT NULL
                    AND octet_length(activity->>'channelID') BETWEEN 1 AND 88
            """,
        ]),
        Migration(identifier: "012 integer ids for devices, apps, notifications and changes", statements: [
            // As SQLite's 012 says: devices and apps get integer ids, notifications are kept by their app's id and changes
            // by their device's id. PostgreSQL changes the tables in place: adding an identity column numbers the rows
            // there, and dropping the old key columns drops the keys, indexes and references built on them.
            "ALTER TABLE devices ADD COLUMN id BIGINT NOT NULL GENERATED BY DEFAULT AS IDENTITY UNIQUE",
            "ALTER TABLE apps ADD COLUMN id BIGINT NOT NULL GENERATED BY DEFAULT AS IDENTITY UNIQUE",
            "ALTER TABLE notifications ADD COLUMN app_id BIGINT",
            """
            UPDATE notifications SET app_id = apps.id FROM apps
            WHERE apps.device_token = notifications.device_token AND apps.topic = notifications.topic
            """,
            "ALTER TABLE notifications DROP COLUMN device_token, DROP COLUMN topic",
            """
            ALTER TABLE notifications ALTER COLUMN app_id SET NOT NULL, ADD PRIMARY KEY (app_id, identifier),
                ADD FOREIGN KEY (app_id) REFERENCES apps (id) ON DELETE CASCADE
            """,
            "CREATE INDEX notifications_by_app_sequence ON notifications (app_id, sequence)",
            "CREATE INDEX notifications_held ON notifications (app_id, delivered_at) WHERE held = 1",
            "ALTER TABLE changes ADD COLUMN device_id BIGINT",
            "UPDATE changes SET device_id = devices.id FROM devices WHERE devices.token = changes.device_token",
            "ALTER TABLE changes DROP COLUMN device_token",
            """
            ALTER TABLE changes ALTER COLUMN device_id SET NOT NULL, ADD PRIMARY KEY (device_id, number),
                ADD FOREIGN KEY (device_id) REFERENCES devices (id) ON DELETE CASCADE
            """,
        ]),
        Migration(identifier: "013 apps found by Firebase installation ID", statements: [
            // An FCM message may name an app's installation ID, its registration token's part before the colon: the
            // tokens are searched by that prefix, bytewise, which this index answers under any collation.
            "CREATE INDEX apps_by_fcm_token_bytes ON apps (fcm_token text_pattern_ops)"
        ]),
        Migration(identifier: "014 web apps' push subscriptions", statements: [
            // A web app's subscription: its endpoint ID, unique, which a push names, and the rest as JSON.
            "ALTER TABLE apps ADD COLUMN web_push_id TEXT",
            "ALTER TABLE apps ADD COLUMN web_push TEXT",
            "CREATE UNIQUE INDEX apps_by_web_push_id ON apps (web_push_id)",
        ]),
        Migration(identifier: "015 delivery receipts", statements: [
            // An Expo ticket's receipt, kept a day: found by id, forgotten by age.
            """
            CREATE TABLE delivery_receipts (
                id TEXT PRIMARY KEY,
                created_at BIGINT NOT NULL,
                error TEXT,
                message TEXT
            )
            """,
            "CREATE INDEX delivery_receipts_by_age ON delivery_receipts (created_at)",
        ]),
    ]

    /// The advisory lock that migrating servers take, so that servers starting together apply each
    /// migration once: the others wait, then find nothing left to do. (Any 64-bit number; this one spells
    /// "huddle" in ASCII.)
    static let lockKey: Int64 = 0x68_75_64_64_6c_65

    /// Applies the migrations the database lacks, in one transaction under the advisory lock.
    /// - Returns: the identifiers of the migrations applied now; empty when the database was up to date.
    /// - Throws: ``StoreError`` `.corrupt` when the database has migrations this build does not know (a newer
    ///   Huddle wrote it), `.unavailable` when the server cannot be reached.
    @discardableResult
    public static func migrate(_ database: PostgresURL, logger: Logger) async throws -> [String] {
        try await withConnection(database, logger: logger) { connection in try await migrate(connection, logger: logger) }
    }

    /// The migrations the database lacks, without applying them (nor creating anything).
    /// - Throws: ``StoreError`` `.corrupt` when the database has migrations this build does not know.
    public static func pending(_ database: PostgresURL, logger: Logger) async throws -> [String] {
        try await withConnection(database, logger: logger) { connection in
            try await connection.read(logger: logger) { connection in
                try pending(after: try await applied(connection, logger: logger)).map(\.identifier)
            }
        }
    }

    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.write(logger: logger) { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.run(
                "CREATE TABLE IF NOT EXISTS schema_migrations (identifier TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
                logger: logger)
            for (former, current) in formerIdentifiers {
                let renamed = try await connection.rows(
                    "DELETE FROM schema_migrations WHERE identifier = \(former) RETURNING applied_at", logger: logger
                ).map { try $0.decode(Int64.self) }
                for appliedAt in renamed {
                    for identifier in current {
                        try await connection.run(
                            "INSERT INTO schema_migrations (identifier, applied_at) VALUES (\(identifier), \(appliedAt))", logger: logger)
                    }
                    logger.info("PostgreSQL migration \(former) is now recorded as \(current.joined(separator: " and "))")
                }
            }
            let pending = try pending(after: try await applied(connection, logger: logger))
            for migration in pending {
                for statement in migration.statements {
                    // Schema text is this file's constant, never a value from outside.
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run(
                    "INSERT INTO schema_migrations (identifier, applied_at) VALUES (\(migration.identifier), \(Date().milliseconds))",
                    logger: logger)
                logger.info("applied PostgreSQL migration \(migration.identifier)")
            }
            return .commit(pending.map(\.identifier))
        }
    }

    /// The identifiers in `schema_migrations`; none when the table does not exist yet.
    private static func applied(_ connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        let exists = try await connection.firstRow("SELECT to_regclass('schema_migrations') IS NOT NULL", logger: logger)?
            .decode(Bool.self) ?? false
        guard exists else { return [] }
        let recorded = try await connection.rows("SELECT identifier FROM schema_migrations", logger: logger).map { try $0.decode(String.self) }
        return Set(recorded.flatMap { formerIdentifiers[$0] ?? [$0] })
    }

    /// The migrations not in `applied`, refusing a database that has some this build does not know.
    private static func pending(after applied: Set<String>) throws -> [Migration] {
        let unknown = applied.subtracting(all.map(\.identifier))
        guard unknown.isEmpty else {
            throw StoreError(
                .corrupt,
                "the database was written by a newer Huddle (unknown migrations: \(unknown.sorted().joined(separator: ", "))); upgrade Huddle")
        }
        return all.filter { !applied.contains($0.identifier) }
    }

    /// Runs `body` on a connection of its own, for the one-off work of a command or a server starting up.
    /// (A pool would retry a failing server for a minute before saying why; this says at once.)
    private static func withConnection<Value: Sendable>(
        _ database: PostgresURL, logger: Logger, _ body: (PostgresConnection) async throws -> Value
    ) async throws -> Value {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try database.connectionConfiguration(), id: 0, logger: logger)
        } catch {
            throw StoreError.fromPostgres(error)
        }
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
