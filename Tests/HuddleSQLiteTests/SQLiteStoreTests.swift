import Foundation
import GRDB
import HuddleCore
@testable import HuddleSQLite
import HuddleTestSupport
import Testing

@Suite struct SQLiteStoreTests {
    /// This test's folder (each test has an instance of its own), removed with its files after the test.
    private let folder: TemporaryDirectory

    init() throws {
        folder = try TemporaryDirectory()
    }

    /// A new database file's path in the test's folder.
    func temporaryPath() -> String {
        folder.url.appendingPathComponent("\(UUID().uuidString).sqlite").path
    }

    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: String) async throws {
        let store = try SQLiteNotificationStore(path: temporaryPath())
        try await StoreConformance.check(check, store: store)
    }

    /// The store's own transaction (its BEGIN and COMMIT prepared once): what a failing write wrote is rolled back, the
    /// connection is left outside any transaction, and the next write commits with the same statements.
    @Test func aFailedWriteLeavesNothingAndTheNextCommits() throws {
        struct Refused: Error {}
        let queue = try DatabaseQueue()
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE t (v INTEGER)")
            #expect(throws: Refused.self) {
                try SQLiteNotificationStore.inTransaction(db) { db in
                    try db.execute(sql: "INSERT INTO t VALUES (1)")
                    throw Refused()
                }
            }
            #expect(!db.isInsideTransaction)
            for value in [2, 3] {
                try SQLiteNotificationStore.inTransaction(db) { db in try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [value]) }
                #expect(!db.isInsideTransaction)
            }
            #expect(try Int.fetchAll(db, sql: "SELECT v FROM t ORDER BY v") == [2, 3])
        }
    }

    @Test func forgetsOldChanges() async throws {
        var configuration = SQLiteNotificationStore.Configuration()
        configuration.retention = ChangeRetention(changesPerDevice: 10)
        try await StoreConformance.checkRetention(store: try SQLiteNotificationStore(path: temporaryPath(), configuration: configuration))
    }

    /// A database from before changes were numbered (migration 001 only) gets numbers that continue after
    /// its notifications' sequences.
    @Test func migratesADatabaseFromBeforeNumberedChanges() async throws {
        let path = temporaryPath()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('001 devices, apps, notifications, signing keys');
                """)
        }
        try await queue.write { db in try db.execute(sql: Self.schema001) }
        try await queue.write { db in
            try db.execute(sql: """
                INSERT INTO devices VALUES ('\(StoreConformance.token)', 'hash', 'Old iPhone', 0);
                INSERT INTO apps VALUES ('\(StoreConformance.token)', 'com.example.app', 'en', '{}', '[]');
                INSERT INTO notifications VALUES ('\(StoreConformance.token)', 'com.example.app', 'a', 7, 1000, '{"title": "Old"}');
                """)
        }
        try queue.close()
        let store = try SQLiteNotificationStore(path: path)
        let snapshot = try #require(try await store.snapshot(device: StoreConformance.token))
        #expect(snapshot.lastChange == 7)
        #expect(snapshot.notifications.map(\.stamp.sequence) == [7])
        #expect(snapshot.apps.map(\.displayName) == [nil])
        #expect(try await store.changes(device: StoreConformance.token, after: 6) == nil)
        #expect(try await store.changes(device: StoreConformance.token, after: 7) == [])
        let change = try await store.deliver(
            NotificationRequest(identifier: "b", content: NotificationContent(title: .plain("New"))), app: "com.example.app",
            at: Date(), device: StoreConformance.token)
        #expect(change.number == 8)
    }

    /// A database as migration 010 left it keeps its Live Activities' channels: 011 fills the table a broadcast reads its
    /// devices from with the activities stored before, and the store keeps it from then on.
    @Test func migration011FindsTheChannelsOfActivitiesStoredBefore() async throws {
        let path = temporaryPath()
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "010 Android devices, FCM registration tokens, service accounts, topic subscriptions")
        try await queue.write { db in
            try db.execute(
                sql: "INSERT INTO devices (token, secret_hash, name, created_at, activities) VALUES ('ab', 'x', 'phone', 0, ?), ('cd', 'x', 'phone', 0, NULL)",
                arguments: [LiveActivity.storedText(StoreConformance.activitiesOnChannels)])
        }
        try queue.close()
        #expect(try SQLiteMigrations.pending(path: path).first == "011 the channels Live Activities listen on")
        let store = try SQLiteNotificationStore(path: path)
        let listening = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT channel_id || ' ' || app || ' ' || device_token FROM activity_channels ORDER BY 1")
        }
        #expect(listening == ["AQ== com.example.other ab", "Ag== com.example.app ab"])
        #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .development) == ["ab"])
    }

    /// A database as migration 011 left it keeps everything through 012's integer ids, and the store goes on from there
    /// (``StoreConformance/checkRowsKeptBy012(store:rows:)``).
    @Test func migration012KeepsEveryRowOfADatabaseWrittenBefore() async throws {
        let path = temporaryPath()
        let queue = try DatabaseQueue(path: path)
        try SQLiteMigrations.migrator.migrate(queue, upTo: "011 the channels Live Activities listen on")
        try await queue.write { db in
            for statement in StoreConformance.rowsWrittenBefore012(bytes: { "X'\($0)'" }) { try db.execute(sql: statement) }
        }
        try queue.close()
        #expect(try SQLiteMigrations.pending(path: path) == [
            "012 integer ids for devices, apps, notifications and changes", "013 apps found by Firebase installation ID",
            "014 web apps' push subscriptions", "015 delivery receipts",
        ])
        try await StoreConformance.checkRowsKeptBy012(store: try SQLiteNotificationStore(path: path), journalsDeliveries: false) {
            try await DatabaseQueue(path: path).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM notifications UNION ALL SELECT 'change ' || device_id || ' ' || number FROM changes")
            }
        }
    }

    /// Migration 001 as shipped.
    static let schema001 = """
        CREATE TABLE devices (token TEXT PRIMARY KEY NOT NULL, secret_hash TEXT NOT NULL, name TEXT NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE apps (
            device_token TEXT NOT NULL REFERENCES devices (token) ON DELETE CASCADE, topic TEXT NOT NULL,
            development_language TEXT NOT NULL, settings TEXT NOT NULL, categories TEXT NOT NULL, PRIMARY KEY (device_token, topic));
        CREATE TABLE localization_files (
            device_token TEXT NOT NULL, topic TEXT NOT NULL, path TEXT NOT NULL, data BLOB NOT NULL,
            PRIMARY KEY (device_token, topic, path),
            FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE);
        CREATE TABLE notifications (
            device_token TEXT NOT NULL, topic TEXT NOT NULL, identifier TEXT NOT NULL, sequence INTEGER NOT NULL,
            delivered_at INTEGER NOT NULL, content TEXT NOT NULL, PRIMARY KEY (device_token, topic, identifier),
            FOREIGN KEY (device_token, topic) REFERENCES apps (device_token, topic) ON DELETE CASCADE);
        CREATE INDEX notifications_by_sequence ON notifications (device_token, sequence);
        CREATE TABLE unregistered_devices (token TEXT PRIMARY KEY NOT NULL, unregistered_at INTEGER NOT NULL);
        CREATE TABLE signing_keys (
            key_id TEXT PRIMARY KEY NOT NULL, team_id TEXT NOT NULL, public_key TEXT NOT NULL, topics TEXT NOT NULL,
            created_at INTEGER NOT NULL);
        """

    @Test func dataSurvivesReopening() async throws {
        let path = temporaryPath()
        do {
            let store = try SQLiteNotificationStore(path: path)
            try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
        }
        let reopened = try SQLiteNotificationStore(path: path)
        let snapshot = try await reopened.snapshot(device: String(repeating: "ab", count: 32))
        #expect(snapshot?.notifications.count == 3)
        #expect(snapshot?.lastChange == 5)
    }

    /// Commits go to the write-ahead log; the store's checkpointer copies them into the database file soon
    /// after, on its own connection (SQLite's automatic checkpoint, on the writer, is set far off). A copy of
    /// the database file alone, without its log, then holds what was committed.
    @Test func theLogIsCopiedIntoTheDatabaseFileSoonAfterCommits() async throws {
        let path = temporaryPath()
        let store = try SQLiteNotificationStore(path: path)
        try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
        let copy = temporaryPath()
        var notificationsInFile = 0
        for _ in 0..<200 {
            try await Task.sleep(for: .milliseconds(50))
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            notificationsInFile = Self.notificationCount(inFileAt: copy)
            if notificationsInFile == 3 { break }
        }
        // The store stays open until the file has been watched: closing its last connection would checkpoint
        // by itself, and the test would pass without the checkpointer.
        withExtendedLifetime(store) {}
        #expect(notificationsInFile == 3)
    }

    /// The notifications in a database file; 0 when it has no such table yet, or is a copy torn mid-write.
    static func notificationCount(inFileAt path: String) -> Int {
        (try? DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM notifications") }) ?? 0
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        let path = temporaryPath()
        _ = try SQLiteNotificationStore(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('999 from the future')")
        }
        #expect {
            _ = try SQLiteNotificationStore(path: path)
        } throws: { error in
            "\(error)".contains("written by a newer Huddle (unknown migrations: 999 from the future)")
        }
    }

    @Test func corruptRowsAreReportedNotGuessed() async throws {
        let path = temporaryPath()
        let store = try SQLiteNotificationStore(path: path)
        try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "UPDATE notifications SET content = '{broken' WHERE identifier = 'b'") }
        await #expect {
            _ = try await store.snapshot(device: String(repeating: "ab", count: 32))
        } throws: { error in
            "\(error)".contains("stored notification b is not valid JSON")
        }
    }

    @Test func sqliteFailuresAreStoreErrorsWhoseWordsStayInTheLog() async throws {
        let path = temporaryPath()
        var configuration = SQLiteNotificationStore.Configuration()
        configuration.busyTimeout = 0
        let store = try SQLiteNotificationStore(path: path, configuration: configuration)
        // Another connection holds the write lock (on a thread of its own, until released): SQLite answers
        // SQLITE_BUSY.
        let other = try DatabaseQueue(path: path)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? other.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN EXCLUSIVE")
                locked.signal()
                release.wait()
                try db.execute(sql: "ROLLBACK")
            }
        }
        await withCheckedContinuation { continuation in DispatchQueue.global().async { locked.wait(); continuation.resume() } }
        defer { release.signal() }
        await #expect {
            try await store.createDevice(DeviceRecord(token: "t", secretHash: "x", name: "n", createdAt: Date()))
        } throws: { error in
            guard let error = error as? StoreError else { return false }
            return error.code == .unavailable && error.message == "the database cannot be written now"
                && error.detail?.contains("SQLite") == true && !error.message.contains("SQLite")
        }
    }
}
