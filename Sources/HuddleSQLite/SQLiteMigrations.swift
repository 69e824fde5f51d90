import Foundation
import GRDB
import HuddleCore

/// The schema, as numbered migrations. A shipped migration is never edited: changes come as new ones.
public enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("001 devices, apps, notifications, signing keys") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    token TEXT PRIMARY KEY NOT NULL,
                    secret_hash TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE apps (
                    device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                    topic TEXT NOT NULL,
                    development_language TEXT NOT NULL,
                    settings TEXT NOT NULL,
                    categories TEXT NOT NULL,
                    PRIMARY KEY (device_token, topic)
                );
                CREATE TABLE localization_files (
                    device_token TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    path TEXT NOT NULL,
                    data BLOB NOT NULL,
                    PRIMARY KEY (device_token, topic, path),
                    FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE
                );
                CREATE TABLE notifications (
                    device_token TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    identifier TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    delivered_at INTEGER NOT NULL,
                    content TEXT NOT NULL,
                    PRIMARY KEY (device_token, topic, identifier),
                    FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE
                );
                CREATE INDEX notifications_by_sequence ON notifications (device_token, sequence);
                CREATE TABLE unregistered_devices (
                    token TEXT PRIMARY KEY NOT NULL,
                    unregistered_at INTEGER NOT NULL
                );
                CREATE TABLE signing_keys (
                    key_id TEXT PRIMARY KEY NOT NULL,
                    team_id TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    topics TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("002 numbered changes, app display names") { db in
            // Every write to a device's center gets the device's next change number (notifications keep
            // theirs as their sequence), and the latest changes are kept so that a live stream or another
            // server can catch up from a number. Existing notifications were numbered per device already.
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN last_change INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE devices ADD COLUMN oldest_kept_change INTEGER NOT NULL DEFAULT 1;
                UPDATE devices SET last_change = COALESCE(
                    (SELECT MAX(sequence) FROM notifications WHERE notifications.device_token = devices.token), 0);
                UPDATE devices SET oldest_kept_change = last_change + 1;
                ALTER TABLE apps ADD COLUMN display_name TEXT;
                CREATE TABLE changes (
                    device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                    number INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    identifiers TEXT NOT NULL,
                    PRIMARY KEY (device_token, number)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("003 notification counts and order per app") { db in
            // Each app's count is kept beside it, so that a delivery checks the app's limit in its own
            // transaction without counting the app's notifications; the index gives an app's notifications in
            // delivery order, so that its first delivered are found without sorting them all. (It replaces
            // the device-wide index, which it serves too: following a device joins changes to notifications
            // by device, app and number.)
            try db.execute(sql: """
                ALTER TABLE apps ADD COLUMN notification_count INTEGER NOT NULL DEFAULT 0;
                UPDATE apps SET notification_count = (
                    SELECT count(*) FROM notifications
                    WHERE notifications.device_token = apps.device_token AND notifications.topic = apps.topic);
                DROP INDEX notifications_by_sequence;
                CREATE INDEX notifications_by_app_sequence ON notifications (device_token, topic, sequence);
                """)
        }
        migrator.registerMigration("004 device events in the change journal") { db in
            // A push with nothing to show is a change of its own whose subject, the event, lives in the
            // journal itself: it has no table, and goes when the journal forgets it.
            try db.execute(sql: "ALTER TABLE changes ADD COLUMN detail TEXT")
        }
        migrator.registerMigration("005 Live Activities and their declarations") { db in
            // A device's activities are one JSON array beside it (bounded per app, read and written whole by the
            // transaction that applies a push to them); an app's declared activity types are JSON beside it.
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN activities TEXT;
                ALTER TABLE apps ADD COLUMN activity_types TEXT;
                """)
        }
        migrator.registerMigration("006 environments of devices and keys") { db in
            // Every device registered before was a development one, as Xcode's builds are; keys made before
            // may be used in both environments (NULL).
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN environment TEXT NOT NULL DEFAULT 'development';
                ALTER TABLE signing_keys ADD COLUMN environments TEXT;
                """)
        }
        migrator.registerMigration("007 broadcast channels") { db in
            // A channel belongs to an app in one environment; its latest broadcast, when its policy keeps one, is
            // JSON beside it. Which activities listen on it is in their devices' activities, not here.
            try db.execute(sql: """
                CREATE TABLE broadcast_channels (
                    id TEXT PRIMARY KEY NOT NULL,
                    app TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    storage_policy INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_message TEXT
                );
                CREATE INDEX broadcast_channels_by_app ON broadcast_channels (app, environment, created_at);
                """)
        }
        migrator.registerMigration("008 device settings") { db in
            // The person's settings of a device (summary, Focus, layout, time zone) are one JSON object beside it,
            // read and written whole; none for an iPhone's defaults.
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN settings TEXT")
        }
        migrator.registerMigration("009 held and silenced notifications, summaries, app capabilities") { db in
            // Where the person's settings sent each notification, decided when it was stored: held for the scheduled
            // summary (found by the partial index, which holds only those), or silenced by a Focus. Every notification
            // stored before was shown as it came (NULL in both). A device keeps its latest summary; an app what its
            // entitlements allow (NULL: nothing).
            try db.execute(sql: """
                ALTER TABLE notifications ADD COLUMN held INTEGER;
                ALTER TABLE notifications ADD COLUMN silenced_by TEXT;
                CREATE INDEX notifications_held ON notifications (device_token, delivered_at) WHERE held = 1;
                ALTER TABLE devices ADD COLUMN summary TEXT;
                ALTER TABLE apps ADD COLUMN capabilities TEXT;
                """)
        }
        migrator.registerMigration("010 Android devices, FCM registration tokens, service accounts, topic subscriptions") { db in
            // Every device stored before is an iPhone. Apps get their registration token when next saved (NULL until
            // then: no message reaches them by FCM before). A subscription goes with its token's app.
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios';
                ALTER TABLE devices ADD COLUMN android_version INTEGER;
                ALTER TABLE apps ADD COLUMN fcm_token TEXT;
                ALTER TABLE apps ADD COLUMN firebase TEXT;
                CREATE UNIQUE INDEX apps_by_fcm_token ON apps (fcm_token);
                CREATE TABLE service_accounts (
                    key_id TEXT PRIMARY KEY NOT NULL,
                    project TEXT NOT NULL,
                    client_email TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE topic_subscriptions (
                    fcm_token TEXT NOT NULL REFERENCES apps (fcm_token) ON DELETE CASCADE,
                    project TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (project, topic, fcm_token)
                );
                CREATE INDEX topic_subscriptions_by_token ON topic_subscriptions (fcm_token);
                """)
        }
        migrator.registerMigration("011 the channels Live Activities listen on") { db in
            // Which devices' activities listen on a broadcast channel, kept beside their activities and written with them,
            // so that a broadcast finds its devices by the channel instead of reading every device's activities. Filled
            // from the activities stored before, but for identifiers longer than any channel's (88 bytes, as
            // `BroadcastChannel.isWellFormedID` bounds them), which no broadcast could reach.
            try db.execute(sql: """
                CREATE TABLE activity_channels (
                    channel_id TEXT NOT NULL,
                    app TEXT NOT NULL,
                    device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                    PRIMARY KEY (channel_id, app, device_token)
                );
                CREATE INDEX activity_channels_by_device ON activity_channels (device_token);
                INSERT OR IGNORE INTO activity_channels (channel_id, app, device_token)
                    SELECT json_extract(value, '$.channelID'), json_extract(value, '$.app'), devices.token
                    FROM devices, json_each(devices.activities)
                    WHERE devices.activities IS NOT NULL AND json_extract(value, '$.app') IS NOT NULL
                        AND length(CAST(json_extract(value, '$.channelID') AS BLOB)) BETWEEN 1 AND 88;
                """)
        }
        migrator.registerMigration("012 integer ids for devices, apps, notifications and changes") { db in
            // Notifications and the change journal were keyed by a device's 64-character token (and an app's topic), once
            // in each row and again in each index entry: half of a stored notification's bytes, and string comparisons in
            // every B-tree a push writes. Devices and apps get integer ids (their tokens and topics stay unique), and
            // notifications are kept by their app's id, changes by their device's id. A change keeps its topic: it outlives
            // a deleted app. SQLite cannot change a primary key in place, so each table is rebuilt and renamed (GRDB runs a
            // migration with foreign keys off and checks them all before it commits).
            try db.execute(sql: """
                CREATE TABLE devices_012 (
                    id INTEGER PRIMARY KEY,
                    token TEXT NOT NULL UNIQUE,
                    secret_hash TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_change INTEGER NOT NULL DEFAULT 0,
                    oldest_kept_change INTEGER NOT NULL DEFAULT 1,
                    activities TEXT,
                    environment TEXT NOT NULL DEFAULT 'development',
                    settings TEXT,
                    summary TEXT,
                    platform TEXT NOT NULL DEFAULT 'ios',
                    android_version INTEGER
                );
                INSERT INTO devices_012 (
                    token, secret_hash, name, created_at, last_change, oldest_kept_change, activities, environment, settings, summary,
                    platform, android_version)
                SELECT token, secret_hash, name, created_at, last_change, oldest_kept_change, activities, environment, settings, summary,
                    platform, android_version
                FROM devices ORDER BY created_at, token;
                CREATE TABLE apps_012 (
                    id INTEGER PRIMARY KEY,
                    device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE,
                    topic TEXT NOT NULL,
                    development_language TEXT NOT NULL,
                    settings TEXT NOT NULL,
                    categories TEXT NOT NULL,
                    display_name TEXT,
                    notification_count INTEGER NOT NULL DEFAULT 0,
                    activity_types TEXT,
                    capabilities TEXT,
                    fcm_token TEXT,
                    firebase TEXT,
                    UNIQUE (device_token, topic)
                );
                INSERT INTO apps_012 (
                    device_token, topic, development_language, settings, categories, display_name, notification_count, activity_types,
                    capabilities, fcm_token, firebase)
                SELECT device_token, topic, development_language, settings, categories, display_name, notification_count, activity_types,
                    capabilities, fcm_token, firebase
                FROM apps ORDER BY device_token, topic;
                CREATE TABLE notifications_012 (
                    app_id INTEGER NOT NULL REFERENCES apps (id) ON DELETE CASCADE,
                    identifier TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    delivered_at INTEGER NOT NULL,
                    content TEXT NOT NULL,
                    held INTEGER,
                    silenced_by TEXT,
                    PRIMARY KEY (app_id, identifier)
                );
                INSERT INTO notifications_012 (app_id, identifier, sequence, delivered_at, content, held, silenced_by)
                SELECT apps_012.id, n.identifier, n.sequence, n.delivered_at, n.content, n.held, n.silenced_by
                FROM notifications n JOIN apps_012 ON apps_012.device_token = n.device_token AND apps_012.topic = n.topic
                ORDER BY apps_012.id, n.sequence;
                CREATE TABLE changes_012 (
                    device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    number INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    topic TEXT NOT NULL,
                    identifiers TEXT NOT NULL,
                    detail TEXT,
                    PRIMARY KEY (device_id, number)
                ) WITHOUT ROWID;
                INSERT INTO changes_012 (device_id, number, kind, topic, identifiers, detail)
                SELECT devices_012.id, c.number, c.kind, c.topic, c.identifiers, c.detail
                FROM changes c JOIN devices_012 ON devices_012.token = c.device_token;
                DROP TABLE changes;
                DROP TABLE notifications;
                DROP TABLE apps;
                DROP TABLE devices;
                ALTER TABLE devices_012 RENAME TO devices;
                ALTER TABLE apps_012 RENAME TO apps;
                ALTER TABLE notifications_012 RENAME TO notifications;
                ALTER TABLE changes_012 RENAME TO changes;
                CREATE UNIQUE INDEX apps_by_fcm_token ON apps (fcm_token);
                CREATE INDEX notifications_by_app_sequence ON notifications (app_id, sequence);
                CREATE INDEX notifications_held ON notifications (app_id, delivered_at) WHERE held = 1;
                """)
        }
        migrator.registerMigration("013 apps found by Firebase installation ID") { _ in
            // Nothing to make here: SQLite's unique index on fcm_token orders text by its bytes, so the tokens that begin
            // with an installation ID are a range of it. PostgreSQL's migration of the same name adds such an index.
        }
        migrator.registerMigration("014 web apps' push subscriptions") { db in
            // A web app's subscription: its endpoint ID, unique, which a push names, and the rest as JSON.
            try db.execute(
                sql: """
                    ALTER TABLE apps ADD COLUMN web_push_id TEXT;
                    ALTER TABLE apps ADD COLUMN web_push TEXT;
                    CREATE UNIQUE INDEX apps_by_web_push_id ON apps (web_push_id);
                    """)
        }
        migrator.registerMigration("015 delivery receipts") { db in
            // An Expo ticket's receipt, kept a day: found by id, forgotten by age.
            try db.execute(
                sql: """
                    CREATE TABLE delivery_receipts (
                        id TEXT PRIMARY KEY NOT NULL,
                        created_at INTEGER NOT NULL,
                        error TEXT,
                        message TEXT
                    );
                    CREATE INDEX delivery_receipts_by_age ON delivery_receipts (created_at);
                    """)
        }
        return migrator
    }

    /// Applies pending migrations, refusing a database that has migrations this build does not know.
    static func migrate(_ writer: some DatabaseWriter) throws {
        _ = try pending(in: writer)
        try migrator.migrate(writer)
    }

    /// Applies the migrations the database at `path` lacks, creating the file if there is none (what
    /// `huddle migrate` does; a store applies them itself when it opens).
    /// - Returns: the identifiers of the migrations applied now; empty when the database was up to date.
    /// - Throws: ``StoreError`` `.corrupt` when the database has migrations this build does not know.
    @discardableResult
    public static func migrate(path: String) throws -> [String] {
        let pool = try DatabasePool(path: path)
        let pending = try pending(in: pool)
        try migrator.migrate(pool)
        return pending
    }

    /// The migrations the database at `path` lacks, without applying them; every one for a file that does
    /// not exist yet (and is not created).
    /// - Throws: ``StoreError`` `.corrupt` when the database has migrations this build does not know.
    public static func pending(path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return migrator.migrations }
        var configuration = Configuration()
        configuration.readonly = true
        return try pending(in: DatabaseQueue(path: path, configuration: configuration))
    }

    /// The migrations `reader`'s database lacks, refusing one that has migrations this build does not know.
    private static func pending(in reader: some DatabaseReader) throws -> [String] {
        let migrator = migrator
        let applied = try reader.read { db in try migrator.appliedIdentifiers(db) }
        let unknown = applied.subtracting(migrator.migrations)
        guard unknown.isEmpty else {
            throw StoreError(
                .corrupt,
                "the database was written by a newer Huddle (unknown migrations: \(unknown.sorted().joined(separator: ", "))); upgrade Huddle")
        }
        return migrator.migrations.filter { !applied.contains($0) }
    }
}
