public import Foundation
import GRDB
public import HuddleCore

/// A ``NotificationStore`` in one SQLite file (WAL), through GRDB.
///
/// Writes are committed before they return. The schema comes from frozen, numbered migrations
/// (``SQLiteMigrations``); a database written by a newer Huddle is refused rather than misread.
public final class SQLiteNotificationStore: NotificationStore {
    /// Options with defaults suited to a server.
    public struct Configuration: Sendable {
        /// `NORMAL` keeps WAL commits durable across an application crash (the case Huddle tests with
        /// SIGKILL); `FULL` also survives power loss, at a cost per commit.
        public var synchronous: String = "NORMAL"
        /// How long a writer waits for a lock held by another process before failing.
        public var busyTimeout: TimeInterval = 5
        /// How many recent changes of each device are kept for servers and streams catching up.
        public var retention = ChangeRetention()

        public init() {}
    }

    let pool: DatabasePool

    let checkpointer: WALCheckpointer

    let retention: ChangeRetention

    /// Opens (creating if needed) and migrates the database at `path`.
    /// - Throws: ``StoreError`` `.corrupt` when the file has migrations this version does not know.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var grdb = GRDB.Configuration()
        grdb.busyMode = .timeout(configuration.busyTimeout)
        let synchronous = configuration.synchronous
        grdb.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous == "FULL" ? "FULL" : "NORMAL")")
            // The checkpointer keeps the log short; this threshold (16,384 pages, 64 MiB at the default page
            // size) only bounds it should checkpoints fail, and then the writer copies the log itself.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 16384")
        }
        pool = try DatabasePool(path: path, configuration: grdb)
        retention = configuration.retention
        try SQLiteMigrations.migrate(pool)
        checkpointer = try WALCheckpointer(path: path, configuration: grdb)
    }

    /// A change number taken for a device, and the id its journal rows are kept by.
    struct TakenNumber {
        let number: UInt64
        let deviceID: Int64
    }

    /// A write transaction, its failures as ``StoreError``.
    func write<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
        let value: Value
        do {
            value = try await pool.writeWithoutTransaction { db in try Self.inTransaction(db, body) }
        } catch {
            throw StoreError.fromSQLite(error)
        }
        checkpointer.didCommit()
        return value
    }

    /// Runs `body` in an immediate transaction (as GRDB's `write` does), begun and committed by statements prepared once
    /// per connection: GRDB's own transaction parses `BEGIN` and `COMMIT` again for each one, about 1% of a push's CPU
    /// (a profile of pushes into SQLite, `perf record`).
    static func inTransaction<Value>(_ db: Database, _ body: (Database) throws -> Value) throws -> Value {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        do {
            let value = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
            return value
        } catch {
            // SQLite rolls some failures back itself (a full disk, a busy database): then there is nothing to roll back.
            if db.isInsideTransaction { try? db.rollback() }
            throw error
        }
    }

    /// A read, its failures as ``StoreError``.
    func read<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
        do {
            return try await pool.read(body)
        } catch {
            throw StoreError.fromSQLite(error)
        }
    }

    /// Takes the device's next change number, for a write that records one change.
    func takeNumber(device token: String, _ db: Database) throws -> TakenNumber {
        var batch = Batch()
        let taken = try batch.takeNumber(device: token, db)
        try batch.save(db)
        return taken
    }

    /// Records change `number` in the caller's transaction, forgetting old ones as the retention says.
    func record(
        _ kind: ChangeRecord.Kind, topic: String, identifiers: [String] = [], _ taken: TakenNumber, event: DeviceEvent? = nil,
        summary: ScheduledSummary? = nil, _ db: Database
    ) throws {
        let record = ChangeRecord(number: taken.number, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary)
        try db.cachedStatement(sql: "INSERT INTO changes (device_id, number, kind, topic, identifiers, detail) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [taken.deviceID, Int64(taken.number), kind.rawValue, topic, record.identifiersText, record.detailText])
        try forgetOldChanges(afterRecording: taken, db)
    }

    /// Forgets the device's changes older than the retention keeps, when change `taken` is the one to do it after.
    func forgetOldChanges(afterRecording taken: TakenNumber, _ db: Database) throws {
        if let oldestKept = retention.oldestKept(afterRecording: taken.number) {
            try db.cachedStatement(sql: "DELETE FROM changes WHERE device_id = ? AND number < ?").execute(arguments: [taken.deviceID, Int64(oldestKept)])
            try db.cachedStatement(sql: "UPDATE devices SET oldest_kept_change = ? WHERE id = ?").execute(arguments: [Int64(oldestKept), taken.deviceID])
        }
    }
}
