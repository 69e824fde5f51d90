public import Foundation
import GRDB
public import HuddleCore

extension SQLiteNotificationStore {
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
                    return .success(try self.apply(write, &batch, db))
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

    /// One write of a batch, in the batch's transaction.
    private func apply(_ write: NotificationWrite, _ batch: inout Batch, _ db: Database) throws -> [DeviceChange] {
        switch write {
        case .deliver(let request, let app, let date, let token, _):
            return [try deliver(request, app: app, at: date, device: token, &batch, db)]
        case .remove(let app, let identifiers, let deliveredThrough, let token):
            return [try deleteNotifications(app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token, &batch, db)]
                .compactMap { $0 }
        case .record(let event, let token):
            return [try recordEvent(event, device: token, &batch, db)]
        case .receipted(let write, let receipt):
            try write.checkTakesReceipt()
            // The receipt first, in the write's transaction: one already there says the write was committed with it
            // before (a retry), and is not committed again. A write refused on its own (not found) takes its receipt
            // back, and the batch goes on.
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO delivery_receipts (id, created_at, error, message) VALUES (?, ?, ?, ?)")
                .execute(arguments: [receipt.id, receipt.createdAt.milliseconds, receipt.error, receipt.message])
            guard db.changesCount > 0 else { return [] }
            do {
                return try apply(write, &batch, db)
            } catch let error as StoreError where error.code == .notFound {
                try db.cachedStatement(sql: "DELETE FROM delivery_receipts WHERE id = ?").execute(arguments: [receipt.id])
                throw error
            }
        }
    }

    public func saveReceipts(_ receipts: [DeliveryReceipt]) async throws {
        guard !receipts.isEmpty else { return }
        try await write { db in try Self.insert(receipts, db) }
    }

    private static func insert(_ receipts: [DeliveryReceipt], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO delivery_receipts (id, created_at, error, message) VALUES (?, ?, ?, ?)")
        for receipt in receipts {
            try statement.execute(arguments: [receipt.id, receipt.createdAt.milliseconds, receipt.error, receipt.message])
        }
    }

    public func receipts(ids: [String], keptSince: Date) async throws -> [DeliveryReceipt] {
        guard !ids.isEmpty else { return [] }
        return try await read { db in
            let statement = try db.cachedStatement(sql: "SELECT id, created_at, error, message FROM delivery_receipts WHERE id = ? AND created_at >= ?")
            var found: [DeliveryReceipt] = []
            for id in Set(ids) {
                guard let row = try Row.fetchOne(statement, arguments: [id, keptSince.milliseconds]) else { continue }
                found.append(DeliveryReceipt(id: row[0], createdAt: Date(milliseconds: row[1]), error: row[2], message: row[3]))
            }
            return found
        }
    }

    public func forgetReceipts(createdBefore date: Date, keepingAtMost count: Int) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM delivery_receipts WHERE created_at < ?", arguments: [date.milliseconds])
            let old = db.changesCount
            // Those past the newest `count`, by the index of their age: one statement, no count to go stale.
            try db.execute(
                sql: "DELETE FROM delivery_receipts WHERE id IN (SELECT id FROM delivery_receipts ORDER BY created_at DESC LIMIT -1 OFFSET ?)",
                arguments: [max(count, 0)])
            return old + db.changesCount
        }
    }

    /// An app as the rows of its notifications name it: by its id (migration 012), beside the topic changes keep.
    struct AppKey {
        let id: Int64
        let topic: String
    }

    /// What the writes of one transaction share: each device's id and change numbers and each app's id and count of
    /// notifications, read once and written back once however many changes the transaction records. SQLite has one
    /// writer, so nothing changes them meanwhile.
    struct Batch {
        private var lastChange: [String: TakenNumber] = [:]
        /// The settings of each device that has its own (none for a new device's, the common case), read with
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
                // while the cursor lives: each index is named after its column (``DeviceColumn``).
                let cursor = try Row.fetchCursor(read, arguments: [token])
                try withExtendedLifetime(cursor) {
                    guard let row = try cursor.next() else { throw StoreError(.notFound, "unknown device \(token)") }
                    try remember(
                        device: token, id: row[DeviceColumn.id], lastChange: row[DeviceColumn.lastChange], settingsText: row[DeviceColumn.settings])
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
                    guard let appID = row[DeviceColumn.appID] as Int64? else { return nil }
                    try remember(
                        device: token, id: row[DeviceColumn.id], lastChange: row[DeviceColumn.lastChange], settingsText: row[DeviceColumn.settings])
                    return FoundApp(id: appID, count: row[DeviceColumn.appNotificationCount])
                }
                guard let app else { return nil }
                apps[DeviceApp(device: token, topic: topic)] = app
            }
            guard let app = try app(topic, device: token, db) else { return nil }
            return (app, next(device: token))
        }

        /// The columns of a device's row as the batch's statements select them, by index: `id, last_change, settings`,
        /// then, with its app, `apps.id, apps.notification_count`.
        private enum DeviceColumn {
            static let id = 0
            static let lastChange = 1
            static let settings = 2
            static let appID = 3
            static let appNotificationCount = 4
        }

        /// The columns of an app's row as ``app(_:device:_:)`` selects them: `id, notification_count`.
        private enum AppColumn {
            static let id = 0
            static let notificationCount = 1
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
            let found: FoundApp? = try withExtendedLifetime(cursor) {
                try cursor.next().map { row in FoundApp(id: row[AppColumn.id], count: row[AppColumn.notificationCount]) }
            }
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

    func deliver(
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

    public func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange {
        try await write { db in
            var batch = Batch()
            let change = try self.recordEvent(event, device: token, &batch, db)
            try batch.save(db)
            return change
        }
    }

    func recordEvent(_ event: DeviceEvent, device token: String, _ batch: inout Batch, _ db: Database) throws -> DeviceChange {
        guard try batch.app(event.app, device: token, db) != nil else {
            try Self.requireDevice(token, db)
            throw StoreError(.notFound, "device \(token) has no app \(event.app)")
        }
        let taken = try batch.takeNumber(device: token, db)
        try record(.event, topic: event.app, taken, event: event, db)
        return DeviceChange(number: taken.number, kind: .event(event))
    }

    /// Removes the app's first delivered notifications past `limit`, given its count in this transaction.
    func trimNotifications(
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

    func deleteNotifications(
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
    func recordRemoval(
        app: AppKey, identifiers removed: [String], device token: String, _ batch: inout Batch, _ db: Database
    ) throws -> DeviceChange {
        batch.changeCount(of: app, device: token, by: -removed.count)
        let taken = try batch.takeNumber(device: token, db)
        try record(.removed, topic: app.topic, identifiers: removed, taken, db)
        return DeviceChange(number: taken.number, kind: .removed(app: app.topic, identifiers: removed))
    }

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
                        notification: delivered[changeNumber], app: app, activities: activities ?? [], settings: settings ?? .newDevice))
            }
            return changes
        }
    }

    /// A notification from a row with its `identifier`, `topic`, `sequence`, `delivered_at`, `content`, `held` and
    /// `silenced_by`.
    static func notification(_ row: Row) throws -> DeliveredNotification {
        try RowCodec.notification(
            identifier: row["identifier"], topic: row["topic"], sequence: row["sequence"], deliveredAt: row["delivered_at"],
            contentText: row["content"], held: (row["held"] as Int64?) == 1, silencedBy: row["silenced_by"])
    }
}
