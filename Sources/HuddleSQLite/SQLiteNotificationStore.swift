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

    private let pool: DatabasePool
    private let checkpointer: WALCheckpointer
    private let retention: ChangeRetention

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

    // MARK: Devices

    public func createDevice(_ device: DeviceRecord, maximumDevices: Int) async throws {
        try await write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE token = ?", arguments: [device.token]) == true {
                throw StoreError(.conflict, "device \(device.token) exists")
            }
            // Counted in the write transaction, which SQLite runs one at a time.
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0
            guard count < maximumDevices else { throw UpdateRefusal.tooManyDevices(count) }
            try db.execute(
                sql: "INSERT INTO devices (token, secret_hash, name, created_at, environment, platform, android_version) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    device.token, device.secretHash, device.name, device.createdAt.milliseconds, device.environment.rawValue, device.kind.name,
                    device.kind.androidVersion,
                ])
            try db.execute(sql: "DELETE FROM unregistered_devices WHERE token = ?", arguments: [device.token])
        }
    }

    public func deviceCount() async throws -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM devices") ?? 0 }
    }

    public func device(token: String) async throws -> DeviceRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE token = ?", arguments: [token]).map(Self.device)
        }
    }

    public func devices(newestFirst limit: Int) async throws -> [DeviceRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM devices ORDER BY created_at DESC, token DESC LIMIT ?", arguments: [limit]).map(Self.device)
        }
    }

    public func deleteDevice(token: String, at date: Date) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM devices WHERE token = ?", arguments: [token])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: "INSERT OR REPLACE INTO unregistered_devices (token, unregistered_at) VALUES (?, ?)",
                arguments: [token, date.milliseconds])
            return true
        }
    }

    public func unregistrationDate(token: String) async throws -> Date? {
        try await read { db in
            try Int64.fetchOne(db, sql: "SELECT unregistered_at FROM unregistered_devices WHERE token = ?", arguments: [token])
                .map(Date.init(milliseconds:))
        }
    }

    // MARK: Apps

    public func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange {
        try await UpdateRefusal.unwrapping {
            try await write { db in try self.updateApp(topic: topic, device: token, maximumApps: maximumApps, update, db) }
        }
    }

    /// Reads the app, changes it and writes it back in one write transaction, which SQLite runs one at a
    /// time: a change that commits first is what the next one reads.
    private func updateApp(
        topic: String, device token: String, maximumApps: Int, _ update: AppUpdate, _ db: Database
    ) throws -> DeviceChange {
        try Self.requireDevice(token, db)
        let current = try Self.apps(device: token, topic: topic, db).first
        let app = try UpdateRefusal.apply(update, to: current, topic: topic)
        if current == nil {
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM apps WHERE device_token = ?", arguments: [token]) ?? 0
            try UpdateRefusal.checkRoom(count: count, maximum: maximumApps)
        }
        try db.execute(
            sql: """
                INSERT INTO apps (
                    device_token, topic, display_name, development_language, settings, categories, activity_types, capabilities, fcm_token,
                    firebase)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_token, topic) DO UPDATE SET
                    display_name = excluded.display_name, development_language = excluded.development_language,
                    settings = excluded.settings, categories = excluded.categories, activity_types = excluded.activity_types,
                    capabilities = excluded.capabilities, fcm_token = excluded.fcm_token, firebase = excluded.firebase
                """,
            arguments: [
                token, topic, app.displayName, app.developmentLanguage, RowCodec.settingsText(app), RowCodec.categoriesText(app),
                RowCodec.activityTypesText(app), app.capabilities.storedText, app.firebase.registrationToken, app.firebase.storedText,
            ])
        // Taken out of the summary (or the summary off): its held notifications are held no more.
        if !(try Self.settings(device: token, db)).holds(appSettings: app.settings) {
            try Self.releaseHeld(app: topic, device: token, db)
        }
        // Only the files that changed are written: an upload of one file rewrites no other.
        let files = app.localizationChanges(from: current)
        for path in files.deleted {
            try db.execute(
                sql: "DELETE FROM localization_files WHERE device_token = ? AND topic = ? AND path = ?", arguments: [token, topic, path])
        }
        for (path, data) in files.written {
            try db.execute(
                sql: """
                    INSERT INTO localization_files (device_token, topic, path, data) VALUES (?, ?, ?, ?)
                    ON CONFLICT (device_token, topic, path) DO UPDATE SET data = excluded.data
                    """,
                arguments: [token, topic, path, data])
        }
        let taken = try takeNumber(device: token, db)
        try record(.appSaved, topic: topic, taken, db)
        return DeviceChange(number: taken.number, kind: .appSaved(app))
    }

    public func apps(device token: String) async throws -> [AppRecord] {
        try await read { db in try Self.apps(device: token, db) }
    }

    public func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) async throws -> DeviceChange? {
        try await UpdateRefusal.unwrapping {
            try await write { db in
                if let precondition {
                    guard let app = try Self.apps(device: token, topic: topic, db).first else { return nil }
                    try UpdateRefusal.check(precondition, app)
                }
                try db.execute(sql: "DELETE FROM apps WHERE device_token = ? AND topic = ?", arguments: [token, topic])
                guard db.changesCount > 0 else { return nil }
                // Its Live Activities go with it, as they do when an app is deleted from an iPhone.
                let activities = try Self.activities(device: token, db)
                if activities.contains(where: { $0.app == topic }) {
                    try Self.saveActivities(activities.filter { $0.app != topic }, replacing: activities, device: token, db)
                }
                let taken = try takeNumber(device: token, db)
                try record(.appDeleted, topic: topic, taken, db)
                return DeviceChange(number: taken.number, kind: .appDeleted(topic: topic))
            }
        }
    }

    // MARK: Notifications

    public func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) async throws -> DeviceChange {
        try await write { db in
            var batch = Batch()
            let change = try self.deliver(request, app: app, at: date, device: token, &batch, db)
            try batch.save(db)
            return change
        }
    }

    public func deleteNotifications(
        app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String
    ) async throws -> DeviceChange? {
        guard !identifiers.isEmpty else { return nil }
        return try await write { db in
            var batch = Batch()
            let change = try self.deleteNotifications(
                app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token, &batch, db)
            try batch.save(db)
            return change
        }
    }

    public func trimNotifications(app: String, device token: String, limit: Int) async throws -> DeviceChange? {
        try await write { db in
            var batch = Batch()
            guard let appKey = try batch.app(app, device: token, db),
                let count = batch.count(of: DeviceApp(device: token, topic: app))
            else { return nil }
            let change = try self.trimNotifications(app: appKey, device: token, limit: limit, count: count, &batch, db)
            try batch.save(db)
            return change
        }
    }

    public func commit(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>] {
        try await write { db in
            var batch = Batch()
            var results = try writes.map { write -> Result<[DeviceChange], StoreError> in
                // A `.notFound` is found before its write changes anything, so the transaction goes on; any
                // other error rolls the whole transaction back.
                do {
                    switch write {
                    case .deliver(let request, let app, let date, let token, _):
                        return .success([try self.deliver(request, app: app, at: date, device: token, &batch, db)])
                    case .remove(let app, let identifiers, let deliveredThrough, let token):
                        return .success([try self.deleteNotifications(
                            app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token, &batch, db)].compactMap { $0 })
                    case .record(let event, let token):
                        return .success([try self.recordEvent(event, device: token, &batch, db)])
                    }
                } catch let error as StoreError where error.code == .notFound {
                    return .failure(error)
                }
            }
            for delivery in NotificationLimit.lastDeliveryPerApp(writes.storedDeliveries(results)) {
                guard let app = batch.foundApp(delivery.app), let count = batch.countAfterAdding(to: delivery.app) else { continue }
                if let trim = try self.trimNotifications(app: app, device: delivery.app.device, limit: delivery.limit, count: count, &batch, db)
                {
                    results[delivery.position] = results[delivery.position].map { $0 + [trim] }
                }
            }
            try batch.save(db)
            return results
        }
    }

    /// An app as the rows of its notifications name it: by its id (migration 012), beside the topic changes keep.
    private struct AppKey {
        let id: Int64
        let topic: String
    }

    /// A change number taken for a device, and the id its journal rows are kept by.
    private struct TakenNumber {
        let number: UInt64
        let deviceID: Int64
    }

    /// What the writes of one transaction share: each device's id and change numbers and each app's id and count of
    /// notifications, read once and written back once however many changes the transaction records. SQLite has one
    /// writer, so nothing changes them meanwhile.
    private struct Batch {
        private var lastChange: [String: TakenNumber] = [:]
        /// The settings of each device that has its own (none for an iPhone's defaults, the common case), read with
        /// its number.
        private var settings: [String: DeviceSettings] = [:]
        /// What deciding an arrival needs of each app, read only for devices whose settings decide arrivals.
        private var arrivalSettings: [DeviceApp: (settings: AppSettings, capabilities: AppCapabilities)] = [:]
        /// Each app the transaction found, with its count of notifications as the transaction has left it.
        private var apps: [DeviceApp: FoundApp] = [:]

        private struct FoundApp {
            let id: Int64
            var count: Int
            var countChanged = false
            /// Whether the transaction added a notification to the app (a replacement adds none): only then does
            /// the batch trim it, as the PostgreSQL store does.
            var added = false
        }

        /// Counts notifications added to (or, negative, removed from) an app this transaction found.
        mutating func changeCount(of app: AppKey, device token: String, by difference: Int) {
            let key = DeviceApp(device: token, topic: app.topic)
            guard var found = apps[key] else { preconditionFailure("an app's count changed before the transaction read it") }
            found.count += difference
            found.countChanged = true
            found.added = found.added || difference > 0
            apps[key] = found
        }

        /// An app's count of notifications as this transaction has left it; nil for an app it has not found.
        func count(of key: DeviceApp) -> Int? {
            apps[key]?.count
        }

        /// The count of an app this transaction added notifications to; nil for any other.
        func countAfterAdding(to key: DeviceApp) -> Int? {
            apps[key].flatMap { $0.added ? $0.count : nil }
        }

        /// The device's next change number.
        mutating func takeNumber(device token: String, _ db: Database) throws -> TakenNumber {
            if lastChange[token] == nil {
                let read = try db.cachedStatement(sql: "SELECT id, last_change, settings FROM devices WHERE token = ?")
                // A cursor's row is read in place, by column index (no copy of it, no lookup of its columns by name),
                // while the cursor lives.
                let cursor = try Row.fetchCursor(read, arguments: [token])
                try withExtendedLifetime(cursor) {
                    guard let row = try cursor.next() else { throw StoreError(.notFound, "unknown device \(token)") }
                    try remember(device: token, id: row[0], lastChange: row[1], settingsText: row[2])
                }
            }
            return next(device: token)
        }

        /// The device's app of `topic` and the device's next change number, for a delivery: the first delivery to a
        /// device in the transaction reads both in one statement.
        /// - Returns: nil, taking no number, when the device has no such app.
        /// - Throws: ``StoreError`` `.notFound` for an unknown device.
        mutating func appAndNumber(_ topic: String, device token: String, _ db: Database) throws -> (app: AppKey, taken: TakenNumber)? {
            if lastChange[token] == nil {
                let read = try db.cachedStatement(sql: """
                    SELECT devices.id, devices.last_change, devices.settings, apps.id, apps.notification_count FROM devices
                    LEFT JOIN apps ON apps.device_token = devices.token AND apps.topic = ?
                    WHERE devices.token = ?
                    """)
                let cursor = try Row.fetchCursor(read, arguments: [topic, token])
                let app: FoundApp? = try withExtendedLifetime(cursor) {
                    guard let row = try cursor.next() else { throw StoreError(.notFound, "unknown device \(token)") }
                    guard let appID = row[3] as Int64? else { return nil }
                    try remember(device: token, id: row[0], lastChange: row[1], settingsText: row[2])
                    return FoundApp(id: appID, count: row[4])
                }
                guard let app else { return nil }
                apps[DeviceApp(device: token, topic: topic)] = app
            }
            guard let app = try app(topic, device: token, db) else { return nil }
            return (app, next(device: token))
        }

        /// Keeps a device's row as this transaction read it.
        private mutating func remember(device token: String, id: Int64, lastChange stored: Int64, settingsText: String?) throws {
            lastChange[token] = TakenNumber(number: UInt64(stored), deviceID: id)
            if let settingsText { settings[token] = try DeviceSettings.stored(settingsText, device: token) }
        }

        /// Takes the number after the device's last, which the transaction has read.
        private mutating func next(device token: String) -> TakenNumber {
            let last = lastChange[token]!
            let next = TakenNumber(number: last.number + 1, deviceID: last.deviceID)
            lastChange[token] = next
            return next
        }

        /// Where a notification arriving at `date` goes, under the device's settings (its number taken first) and the
        /// app's, as this transaction reads them.
        mutating func mark(
            for request: NotificationRequest, app: AppKey, at date: Date, device token: String, _ db: Database
        ) throws -> ArrivalMark {
            guard !settings.isEmpty, let settings = settings[token], settings.decidesArrivals else { return .shown }
            let key = DeviceApp(device: token, topic: app.topic)
            if arrivalSettings[key] == nil {
                let read = try db.cachedStatement(sql: "SELECT settings, capabilities FROM apps WHERE id = ?")
                guard let row = try Row.fetchOne(read, arguments: [app.id]) else { return .shown }
                arrivalSettings[key] = (
                    try RowCodec.appSettings(row["settings"], app: app.topic), try AppCapabilities.stored(row["capabilities"], app: app.topic)
                )
            }
            guard let appSettings = arrivalSettings[key] else { return .shown }
            return settings.mark(
                for: request, app: app.topic, appSettings: appSettings.settings, capabilities: appSettings.capabilities, at: date)
        }

        /// The device's app of `topic`, or nil when the device has none.
        mutating func app(_ topic: String, device token: String, _ db: Database) throws -> AppKey? {
            let key = DeviceApp(device: token, topic: topic)
            if let found = apps[key] { return AppKey(id: found.id, topic: topic) }
            let read = try db.cachedStatement(sql: "SELECT id, notification_count FROM apps WHERE device_token = ? AND topic = ?")
            let cursor = try Row.fetchCursor(read, arguments: [token, topic])
            let found: FoundApp? = try withExtendedLifetime(cursor) { try cursor.next().map { row in FoundApp(id: row[0], count: row[1]) } }
            guard let found else { return nil }
            apps[key] = found
            return AppKey(id: found.id, topic: topic)
        }

        /// An app this transaction found before.
        func foundApp(_ key: DeviceApp) -> AppKey? {
            apps[key].map { AppKey(id: $0.id, topic: key.topic) }
        }

        /// Writes back what the transaction changed: each device's last change number and each app's count. Every
        /// transaction that uses a batch ends with this.
        func save(_ db: Database) throws {
            let writeNumber = try db.cachedStatement(sql: "UPDATE devices SET last_change = ? WHERE id = ?")
            for taken in lastChange.values { try writeNumber.execute(arguments: [Int64(taken.number), taken.deviceID]) }
            let writeCount = try db.cachedStatement(sql: "UPDATE apps SET notification_count = ? WHERE id = ?")
            for app in apps.values where app.countChanged { try writeCount.execute(arguments: [app.count, app.id]) }
        }
    }

    private func deliver(
        _ request: NotificationRequest, app: String, at date: Date, device token: String, _ batch: inout Batch, _ db: Database
    ) throws -> DeviceChange {
        // The statements of a delivery are compiled once per connection (cached), not once per push.
        guard let (appKey, taken) = try batch.appAndNumber(app, device: token, db) else {
            try Self.requireDevice(token, db)
            throw StoreError(.notFound, "device \(token) has no app \(app)")
        }
        let mark = try batch.mark(for: request, app: appKey, at: date, device: token, db)
        // A delivery writes no journal row: its notification, kept under the change's number, is the record
        // (``changes(device:after:)``). The row cost as much as the notification's own insert.
        try forgetOldChanges(afterRecording: taken, db)
        let row: StatementArguments = [
            Int64(taken.number), date.milliseconds, RowCodec.contentText(request.content), mark.heldColumn, mark.silencedByColumn, appKey.id,
            request.identifier,
        ]
        // A new identifier (the common case) is one statement; a replaced one is two and leaves the count.
        try db.cachedStatement(sql: """
            INSERT INTO notifications (sequence, delivered_at, content, held, silenced_by, app_id, identifier)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_id, identifier) DO NOTHING
            """
        ).execute(arguments: row)
        if db.changesCount > 0 {
            batch.changeCount(of: appKey, device: token, by: 1)
        } else {
            try db.cachedStatement(sql: """
                UPDATE notifications SET sequence = ?, delivered_at = ?, content = ?, held = ?, silenced_by = ?
                WHERE app_id = ? AND identifier = ?
                """
            ).execute(arguments: row)
        }
        let notification = DeliveredNotification(
            app: app, request: request, stamp: DeliveryStamp(date: date, sequence: taken.number), mark: mark)
        return DeviceChange(number: taken.number, kind: .delivered(notification))
    }

    public func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) async throws -> [DeviceChange] {
        try await UpdateRefusal.unwrapping {
            try await write { db in
                try Self.requireDevice(token, db)
                guard let typesRow = try Row.fetchOne(
                    db, sql: "SELECT activity_types FROM apps WHERE device_token = ? AND topic = ?", arguments: [token, topic])
                else { throw StoreError(.notFound, "device \(token) has no app \(topic)") }
                let declarations = try RowCodec.activityDeclarations(typesRow["activity_types"], app: topic)
                let stored = try Self.activities(device: token, db)
                var activities = stored
                let event = try UpdateRefusal.check(update, &activities, declarations)
                var batch = Batch()
                var changes: [DeviceChange] = []
                if activities != stored {
                    try Self.saveActivities(activities, replacing: stored, device: token, db)
                    let taken = try batch.takeNumber(device: token, db)
                    try self.record(.activities, topic: topic, taken, db)
                    changes.append(DeviceChange(number: taken.number, kind: .activities(activities)))
                }
                if let event { changes.append(try self.recordEvent(event, device: token, &batch, db)) }
                try batch.save(db)
                return changes
            }
        }
    }

    public func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) async throws -> DeviceChange? {
        try await UpdateRefusal.unwrapping {
            try await write { db in
                try Self.requireDevice(token, db)
                let stored = try Self.settings(device: token, db)
                let settings = try UpdateRefusal.check(update, stored)
                guard settings != stored else { return nil }
                try db.execute(sql: "UPDATE devices SET settings = ? WHERE token = ?", arguments: [settings.storedText, token])
                try Self.releaseHeld(device: token, settings: settings, db)
                let taken = try self.takeNumber(device: token, db)
                try self.record(.settings, topic: "", taken, db)
                return DeviceChange(number: taken.number, kind: .settings(settings))
            }
        }
    }

    /// Hands over the held notifications of the apps whose notifications `settings` no longer hold.
    private static func releaseHeld(device token: String, settings: DeviceSettings, _ db: Database) throws {
        guard settings.summary.isEnabled else {
            try db.execute(
                sql: "UPDATE notifications SET held = NULL WHERE app_id IN (SELECT id FROM apps WHERE device_token = ?) AND held = 1",
                arguments: [token])
            return
        }
        let holding = try Row.fetchAll(
            db,
            sql: """
                SELECT apps.topic, apps.settings FROM apps
                WHERE apps.device_token = ? AND EXISTS (SELECT 1 FROM notifications n WHERE n.app_id = apps.id AND n.held = 1)
                """,
            arguments: [token])
        for row in holding {
            let topic: String = row["topic"]
            guard !settings.holds(appSettings: try RowCodec.appSettings(row["settings"], app: topic)) else { continue }
            try releaseHeld(app: topic, device: token, db)
        }
    }

    /// Hands over the held notifications of one app.
    private static func releaseHeld(app topic: String, device token: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE notifications SET held = NULL WHERE app_id = (SELECT id FROM apps WHERE device_token = ? AND topic = ?) AND held = 1",
            arguments: [token, topic])
    }

    public func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) async throws -> [HoldingDevice] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT held.device_token, held.oldest, devices.last_change FROM (
                        SELECT apps.device_token, min(n.delivered_at) AS oldest
                        FROM notifications n JOIN apps ON apps.id = n.app_id WHERE n.held = 1 GROUP BY apps.device_token
                    ) AS held JOIN devices ON devices.token = held.device_token ORDER BY held.device_token
                    """
            ).map { row in
                let token: String = row["device_token"]
                let lastChange = UInt64(row["last_change"] as Int64)
                return HoldingDevice(
                    token: token, oldestHeld: Date(milliseconds: row["oldest"]), lastChange: lastChange,
                    settings: known[token] == lastChange ? nil : try Self.settings(device: token, db))
            }
        }
    }

    public func deliverSummaries(device token: String, dueBy date: Date?) async throws -> [DeviceChange] {
        try await write { db in
            try Self.requireDevice(token, db)
            let settings = try Self.settings(device: token, db)
            let held = try Row.fetchAll(
                db,
                sql: "SELECT n.*, apps.topic FROM notifications n JOIN apps ON apps.id = n.app_id WHERE apps.device_token = ? AND n.held = 1",
                arguments: [token]
            ).map { row in
                let notification = try Self.notification(row)
                return (notification: notification.heldInSummary, arrived: notification.date)
            }
            var batch = Batch()
            var changes: [DeviceChange] = []
            for summary in ScheduledSummary.due(held, settings: settings, dueBy: date) {
                let release = try db.cachedStatement(
                    sql: "UPDATE notifications SET held = NULL WHERE app_id = (SELECT id FROM apps WHERE device_token = ? AND topic = ?) AND identifier = ?")
                for (app, identifier) in summary.notifications { try release.execute(arguments: [token, app, identifier]) }
                try db.execute(sql: "UPDATE devices SET summary = ? WHERE token = ?", arguments: [summary.storedText, token])
                let taken = try batch.takeNumber(device: token, db)
                try self.record(.summary, topic: "", taken, summary: summary, db)
                changes.append(DeviceChange(number: taken.number, kind: .summary(summary)))
            }
            try batch.save(db)
            return changes
        }
    }

    private static func settings(device token: String, _ db: Database) throws -> DeviceSettings {
        try DeviceSettings.stored(String.fetchOne(db, sql: "SELECT settings FROM devices WHERE token = ?", arguments: [token]), device: token)
    }

    private static func activities(device token: String, _ db: Database) throws -> [LiveActivity] {
        try LiveActivity.stored(String.fetchOne(db, sql: "SELECT activities FROM devices WHERE token = ?", arguments: [token]), device: token)
    }

    /// Stores a device's activities in place of `stored`, and the channels they listen on beside them (migration 011),
    /// rewritten only when those changed: most writes are an activity's new content, on the channels it had.
    private static func saveActivities(_ activities: [LiveActivity], replacing stored: [LiveActivity], device token: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE devices SET activities = ? WHERE token = ?",
            arguments: [activities.isEmpty ? nil : LiveActivity.storedText(activities), token])
        guard LiveActivity.channels(of: activities) != LiveActivity.channels(of: stored) else { return }
        try db.cachedStatement(sql: "DELETE FROM activity_channels WHERE device_token = ?").execute(arguments: [token])
        let add = try db.cachedStatement(sql: "INSERT OR IGNORE INTO activity_channels (channel_id, app, device_token) VALUES (?, ?, ?)")
        for listening in LiveActivity.channels(of: activities) { try add.execute(arguments: [listening.channel, listening.app, token]) }
    }

    public func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange {
        try await write { db in
            var batch = Batch()
            let change = try self.recordEvent(event, device: token, &batch, db)
            try batch.save(db)
            return change
        }
    }

    private func recordEvent(_ event: DeviceEvent, device token: String, _ batch: inout Batch, _ db: Database) throws -> DeviceChange {
        guard try batch.app(event.app, device: token, db) != nil else {
            try Self.requireDevice(token, db)
            throw StoreError(.notFound, "device \(token) has no app \(event.app)")
        }
        let taken = try batch.takeNumber(device: token, db)
        try record(.event, topic: event.app, taken, event: event, db)
        return DeviceChange(number: taken.number, kind: .event(event))
    }

    /// Removes the app's first delivered notifications past `limit`, given its count in this transaction.
    private func trimNotifications(
        app: AppKey, device token: String, limit: Int, count: Int, _ batch: inout Batch, _ db: Database
    ) throws -> DeviceChange? {
        guard count > limit else { return nil }
        // The app's first delivered notifications are one range of its index by number, up to the last of them (read
        // from the index in order: no sort of them all), deleted and returned by one statement.
        let removed = try Row.fetchAll(
            db.cachedStatement(sql: """
                DELETE FROM notifications INDEXED BY notifications_by_app_sequence
                WHERE app_id = ?1 AND sequence <= (
                    SELECT max(sequence) FROM (
                        SELECT sequence FROM notifications INDEXED BY notifications_by_app_sequence
                        WHERE app_id = ?1 ORDER BY sequence LIMIT ?2
                    )
                )
                RETURNING identifier, sequence
                """),
            arguments: [app.id, NotificationLimit.removedByTrimming(count: count, limit: limit)]
        ).map { row in (identifier: row["identifier"] as String, sequence: row["sequence"] as Int64) }
        guard !removed.isEmpty else { return nil }
        // RETURNING's order is SQLite's to choose; the change names them in delivery order.
        let identifiers = removed.sorted { $0.sequence < $1.sequence }.map(\.identifier)
        return try recordRemoval(app: app, identifiers: identifiers, device: token, &batch, db)
    }

    private func deleteNotifications(
        app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String, _ batch: inout Batch, _ db: Database
    ) throws -> DeviceChange? {
        // An app the device does not have has nothing to remove.
        guard let appKey = try batch.app(app, device: token, db) else { return nil }
        var removed: [String] = []
        let delete = try db.cachedStatement(sql: "DELETE FROM notifications WHERE app_id = ? AND identifier = ? AND sequence <= ?")
        let through = Int64(clamping: deliveredThrough ?? .max)
        for identifier in identifiers {
            try delete.execute(arguments: [appKey.id, identifier, through])
            if db.changesCount > 0 { removed.append(identifier) }
        }
        guard !removed.isEmpty else { return nil }
        return try recordRemoval(app: appKey, identifiers: removed, device: token, &batch, db)
    }

    /// What follows removing notifications of an app: its count, and the change that says which.
    private func recordRemoval(
        app: AppKey, identifiers removed: [String], device token: String, _ batch: inout Batch, _ db: Database
    ) throws -> DeviceChange {
        batch.changeCount(of: app, device: token, by: -removed.count)
        let taken = try batch.takeNumber(device: token, db)
        try record(.removed, topic: app.topic, identifiers: removed, taken, db)
        return DeviceChange(number: taken.number, kind: .removed(app: app.topic, identifiers: removed))
    }

    // MARK: Following a device

    public func snapshot(device token: String) async throws -> DeviceSnapshot? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE token = ?", arguments: [token]) else { return nil }
            let notifications = try Row.fetchAll(
                db,
                sql: "SELECT n.*, apps.topic FROM notifications n JOIN apps ON apps.id = n.app_id WHERE apps.device_token = ? ORDER BY n.sequence",
                arguments: [token]
            ).map(Self.notification)
            let lastChange: Int64 = row["last_change"]
            let events = try Row.fetchAll(
                db,
                sql: "SELECT number, topic, detail FROM changes WHERE device_id = ? AND kind = 'event' ORDER BY number DESC LIMIT ?",
                arguments: [row["id"] as Int64, DeviceEvent.keptPerDevice]
            ).reversed().map { row in
                let number: Int64 = row["number"]
                return RecordedEvent(
                    number: UInt64(number), event: try DeviceEvent(app: row["topic"], number: UInt64(number), detailText: row["detail"] ?? ""))
            }
            return DeviceSnapshot(
                device: try Self.device(row), apps: try Self.apps(device: token, db), notifications: notifications,
                lastChange: UInt64(lastChange), events: events, activities: try LiveActivity.stored(row["activities"], device: token),
                settings: try DeviceSettings.stored(row["settings"], device: token),
                summary: try (row["summary"] as String?).map { text throws(StoreError) in try ScheduledSummary.stored(text, device: token) })
        }
    }

    public func changes(device token: String, after number: UInt64) async throws -> [DeviceChange]? {
        try await read { db in
            guard
                let device = try Row.fetchOne(
                    db, sql: "SELECT id, last_change, oldest_kept_change FROM devices WHERE token = ?", arguments: [token])
            else { return nil }
            let lastChange = UInt64(device["last_change"] as Int64)
            guard number < lastChange else { return [] }
            guard number + 1 >= UInt64(device["oldest_kept_change"] as Int64) else { return nil }
            // Every number up to the device's last was taken by one change. Deliveries have no journal row (databases
            // written before may still hold some): a delivery is the notification its app keeps under the change's
            // number, and a number found in neither place was a delivery since replaced or removed.
            let records = try Row.fetchAll(
                db, sql: "SELECT number, kind, topic, identifiers, detail FROM changes WHERE device_id = ? AND number > ? ORDER BY number",
                arguments: [device["id"] as Int64, Int64(number)])
            var delivered: [UInt64: DeliveredNotification] = [:]
            let notifications = try Row.fetchCursor(
                db,
                sql: """
                    SELECT n.identifier, n.sequence, n.delivered_at, n.content, n.held, n.silenced_by, a.topic
                    FROM apps a JOIN notifications n ON n.app_id = a.id
                    WHERE a.device_token = ? AND n.sequence > ?
                    """,
                arguments: [token, Int64(number)])
            while let row = try notifications.next() {
                let notification = try Self.notification(row)
                delivered[notification.stamp.sequence] = notification
            }
            var apps: [String: AppRecord]?
            var activities: [LiveActivity]?
            var settings: DeviceSettings?
            var changes: [DeviceChange] = []
            changes.reserveCapacity(Int(lastChange - number))
            var nextRecord = records.startIndex
            for changeNumber in (number + 1)...lastChange {
                guard nextRecord < records.endIndex, records[nextRecord]["number"] as Int64 == Int64(changeNumber) else {
                    changes.append(DeviceChange(number: changeNumber, kind: delivered[changeNumber].map { .delivered($0) } ?? .superseded))
                    continue
                }
                let row = records[nextRecord]
                nextRecord += 1
                let record = try ChangeRecord(
                    number: changeNumber, kindName: row["kind"], topic: row["topic"], identifiersText: row["identifiers"], detailText: row["detail"])
                var app: AppRecord?
                if record.kind == .appSaved {
                    if apps == nil { apps = Dictionary(try Self.apps(device: token, db).map { ($0.topic, $0) }) { $1 } }
                    app = apps?[record.topic]
                }
                if record.kind == .activities, activities == nil { activities = try Self.activities(device: token, db) }
                if record.kind == .settings, settings == nil { settings = try Self.settings(device: token, db) }
                changes.append(
                    record.change(
                        notification: delivered[changeNumber], app: app, activities: activities ?? [], settings: settings ?? .iPhoneDefaults))
            }
            return changes
        }
    }

    // MARK: Signing keys

    public func saveSigningKey(_ key: SigningKeyRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO signing_keys (key_id, team_id, public_key, topics, created_at, environments) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key_id) DO UPDATE SET team_id = excluded.team_id, public_key = excluded.public_key,
                        topics = excluded.topics, created_at = excluded.created_at, environments = excluded.environments
                    """,
                arguments: [
                    key.keyID, key.teamID, key.publicKeyPEM, RowCodec.topicsText(key),
                    key.createdAt.milliseconds, RowCodec.environmentsText(key),
                ])
        }
    }

    public func signingKey(id: String) async throws -> SigningKeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM signing_keys WHERE key_id = ?", arguments: [id]).map(Self.signingKey)
        }
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM signing_keys ORDER BY key_id").map(Self.signingKey)
        }
    }

    public func deleteSigningKey(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM signing_keys WHERE key_id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    // MARK: Firebase Cloud Messaging

    public func saveServiceAccount(_ account: ServiceAccountRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO service_accounts (key_id, project, client_email, public_key, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (key_id) DO UPDATE SET project = excluded.project, client_email = excluded.client_email,
                        public_key = excluded.public_key, created_at = excluded.created_at
                    """,
                arguments: [account.keyID, account.project, account.clientEmail, account.publicKeyPEM, account.createdAt.milliseconds])
        }
    }

    public func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM service_accounts WHERE key_id = ?", arguments: [keyID]).map(Self.serviceAccount)
        }
    }

    public func serviceAccounts() async throws -> [ServiceAccountRecord] {
        try await read { db in try Row.fetchAll(db, sql: "SELECT * FROM service_accounts ORDER BY key_id").map(Self.serviceAccount) }
    }

    public func deleteServiceAccount(keyID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM service_accounts WHERE key_id = ?", arguments: [keyID])
            return db.changesCount > 0
        }
    }

    public func firebaseRecipient(registrationToken: String) async throws -> FirebaseRecipient? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT device_token, topic, firebase FROM apps WHERE fcm_token = ?", arguments: [registrationToken]),
                let device = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE token = ?", arguments: [row["device_token"] as String])
                    .map(Self.device)
            else { return nil }
            let topic: String = row["topic"]
            return FirebaseRecipient(
                device: device, app: topic, installation: try FirebaseInstallation.stored(token: registrationToken, row["firebase"], app: topic))
        }
    }

    public func registrationToken(installationID: String) async throws -> String? {
        guard FirebaseInstallation.isInstallationID(installationID) else { return nil }
        // The tokens that begin with the ID and its colon: a range of the unique index, which orders text by its bytes.
        let bounds = FirebaseInstallation.registrationTokenBounds(installationID: installationID)
        return try await read { db in
            try String.fetchOne(
                db, sql: "SELECT fcm_token FROM apps WHERE fcm_token >= ? AND fcm_token < ? ORDER BY fcm_token LIMIT 1",
                arguments: [bounds.lowerBound, bounds.upperBound])
        }
    }

    public func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) async throws -> Bool {
        try await write { db in
            guard let app = try Row.fetchOne(db, sql: "SELECT topic, firebase FROM apps WHERE fcm_token = ?", arguments: [registrationToken]) else {
                throw StoreError(.notFound, "no app has registration token \(registrationToken.prefix(40))")
            }
            try UpdateRefusal.checkProject(
                try FirebaseInstallation.stored(token: registrationToken, app["firebase"], app: app["topic"]), subscribingUnder: project)
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM topic_subscriptions WHERE project = ? AND topic = ? AND fcm_token = ?",
                arguments: [project, topic, registrationToken]) == true
            {
                return false
            }
            // Counted in the write transaction, which SQLite runs one at a time.
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM topic_subscriptions WHERE fcm_token = ?", arguments: [registrationToken]) ?? 0
            guard count < maximumTopics else { throw UpdateRefusal.tooManyTopics(count) }
            try db.execute(
                sql: "INSERT INTO topic_subscriptions (fcm_token, project, topic, created_at) VALUES (?, ?, ?, ?)",
                arguments: [registrationToken, project, topic, date.milliseconds])
            return true
        }
    }

    public func unsubscribe(registrationToken: String, project: String, topic: String) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM topic_subscriptions WHERE project = ? AND topic = ? AND fcm_token = ?", arguments: [project, topic, registrationToken])
            return db.changesCount > 0
        }
    }

    public func subscribers(project: String, toAnyOf topics: [String]) async throws -> [(registrationToken: String, topics: Set<String>)] {
        guard !topics.isEmpty else { return [] }
        return try await read { db in
            var subscribed: [String: Set<String>] = [:]
            let placeholders = Array(repeating: "?", count: topics.count).joined(separator: ", ")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT fcm_token, topic FROM topic_subscriptions WHERE project = ? AND topic IN (\(placeholders))",
                arguments: StatementArguments([project] + topics))
            while let row = try rows.next() { subscribed[row["fcm_token"], default: []].insert(row["topic"]) }
            return subscribed.sorted { $0.key < $1.key }.map { (registrationToken: $0.key, topics: $0.value) }
        }
    }

    private static func serviceAccount(_ row: Row) -> ServiceAccountRecord {
        ServiceAccountRecord(
            keyID: row["key_id"], project: row["project"], clientEmail: row["client_email"], publicKeyPEM: row["public_key"],
            createdAt: Date(milliseconds: row["created_at"]))
    }

    // MARK: Broadcast channels

    public func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) async throws {
        try await write { db in
            // One writer at a time: the count is of every channel committed before this insert.
            let count = try Int.fetchOne(
                db, sql: "SELECT count(*) FROM broadcast_channels WHERE app = ? AND environment = ?",
                arguments: [channel.app, channel.environment.rawValue]) ?? 0
            guard count < maximumPerApp else { throw UpdateRefusal.tooManyChannels(count, app: channel.app) }
            try db.execute(
                sql: "INSERT INTO broadcast_channels (id, app, environment, storage_policy, created_at, last_message) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    channel.id, channel.app, channel.environment.rawValue, channel.storagePolicy.rawValue, channel.createdAt.milliseconds,
                    channel.lastMessage?.storedText,
                ])
        }
    }

    public func channel(id: String) async throws -> BroadcastChannel? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM broadcast_channels WHERE id = ?", arguments: [id]).map { row in
                try RowCodec.channel(
                    id: row["id"], app: row["app"], environment: row["environment"], storagePolicy: row["storage_policy"],
                    createdAt: row["created_at"], lastMessage: row["last_message"])
            }
        }
    }

    public func channels(app: String, environment: APNsEnvironment) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM broadcast_channels WHERE app = ? AND environment = ? ORDER BY created_at, id",
                arguments: [app, environment.rawValue])
        }
    }

    public func deleteChannel(id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM broadcast_channels WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func storeBroadcast(_ message: StoredBroadcast, channel id: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE broadcast_channels SET last_message = ? WHERE id = ?", arguments: [message.storedText, id])
            return db.changesCount > 0
        }
    }

    public func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT devices.token FROM activity_channels JOIN devices ON devices.token = activity_channels.device_token
                    WHERE activity_channels.channel_id = ? AND activity_channels.app = ? AND devices.environment = ?
                    ORDER BY devices.token
                    """,
                arguments: [channel, app, environment.rawValue])
        }
    }

    // MARK: Helpers

    /// A write transaction, its failures as ``StoreError``.
    private func write<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
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
    private func read<Value: Sendable>(_ body: @Sendable (Database) throws -> Value) async throws -> Value {
        do {
            return try await pool.read(body)
        } catch {
            throw StoreError.fromSQLite(error)
        }
    }

    private static func signingKey(_ row: Row) throws -> SigningKeyRecord {
        try RowCodec.signingKey(
            keyID: row["key_id"], teamID: row["team_id"], publicKeyPEM: row["public_key"], topicsText: row["topics"],
            createdAt: row["created_at"], environmentsText: row["environments"])
    }

    /// Takes the device's next change number, for a write that records one change.
    private func takeNumber(device token: String, _ db: Database) throws -> TakenNumber {
        var batch = Batch()
        let taken = try batch.takeNumber(device: token, db)
        try batch.save(db)
        return taken
    }

    /// Records change `number` in the caller's transaction, forgetting old ones as the retention says.
    private func record(
        _ kind: ChangeRecord.Kind, topic: String, identifiers: [String] = [], _ taken: TakenNumber, event: DeviceEvent? = nil,
        summary: ScheduledSummary? = nil, _ db: Database
    ) throws {
        let record = ChangeRecord(number: taken.number, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary)
        try db.cachedStatement(sql: "INSERT INTO changes (device_id, number, kind, topic, identifiers, detail) VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [taken.deviceID, Int64(taken.number), kind.rawValue, topic, record.identifiersText, record.detailText])
        try forgetOldChanges(afterRecording: taken, db)
    }

    /// Forgets the device's changes older than the retention keeps, when change `taken` is the one to do it after.
    private func forgetOldChanges(afterRecording taken: TakenNumber, _ db: Database) throws {
        if let oldestKept = retention.oldestKept(afterRecording: taken.number) {
            try db.cachedStatement(sql: "DELETE FROM changes WHERE device_id = ? AND number < ?").execute(arguments: [taken.deviceID, Int64(oldestKept)])
            try db.cachedStatement(sql: "UPDATE devices SET oldest_kept_change = ? WHERE id = ?").execute(arguments: [Int64(oldestKept), taken.deviceID])
        }
    }

    private static func device(_ row: Row) throws -> DeviceRecord {
        try RowCodec.device(
            token: row["token"], secretHash: row["secret_hash"], name: row["name"], createdAt: row["created_at"], environment: row["environment"],
            platform: row["platform"], androidVersion: row["android_version"])
    }

    /// The device's apps, or only the one of `topic`.
    private static func apps(device token: String, topic: String? = nil, _ db: Database) throws -> [AppRecord] {
        let only = topic == nil ? "" : " AND topic = ?"
        let arguments: StatementArguments = topic.map { [token, $0] } ?? [token]
        var files: [String: [String: Data]] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT topic, path, data FROM localization_files WHERE device_token = ?" + only, arguments: arguments)
        {
            files[row["topic"], default: [:]][row["path"]] = row["data"]
        }
        return try Row.fetchAll(db, sql: "SELECT * FROM apps WHERE device_token = ?" + only + " ORDER BY topic", arguments: arguments).map { row in
            let topic: String = row["topic"]
            return try RowCodec.app(
                topic: topic, displayName: row["display_name"], developmentLanguage: row["development_language"],
                settingsText: row["settings"], categoriesText: row["categories"], activityTypesText: row["activity_types"],
                capabilitiesText: row["capabilities"], fcmToken: row["fcm_token"], firebaseText: row["firebase"],
                localizationFiles: files[topic] ?? [:])
        }
    }

    /// A notification from a row with its `identifier`, `topic`, `sequence`, `delivered_at`, `content`, `held` and
    /// `silenced_by`.
    private static func notification(_ row: Row) throws -> DeliveredNotification {
        try RowCodec.notification(
            identifier: row["identifier"], topic: row["topic"], sequence: row["sequence"], deliveredAt: row["delivered_at"],
            contentText: row["content"], held: (row["held"] as Int64?) == 1, silencedBy: row["silenced_by"])
    }

    private static func requireDevice(_ token: String, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE token = ?", arguments: [token]) == true else {
            throw StoreError(.notFound, "unknown device \(token)")
        }
    }
}
