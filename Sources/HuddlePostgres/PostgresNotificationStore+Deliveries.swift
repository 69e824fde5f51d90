public import Foundation
public import HuddleCore
import Logging
import PostgresNIO

extension PostgresNotificationStore {
    /// A batch of one (``deliver(_:)``): one statement, one round trip, its own transaction.
    public func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) async throws -> DeviceChange {
        guard let change = try await deliver([Delivery(request: request, app: app, date: date, device: token)])[0].get().first else {
            throw StoreError(.corrupt, "a delivery was stored without a change")
        }
        return change
    }

    /// Deliveries, the provider endpoint's writes, are one statement: one round trip and one commit for a run
    /// of them. Removals and events between them are committed one at a time.
    ///
    /// An app the batch took past its limit is trimmed after it, in a transaction of its own that counts
    /// again under the device's lock (so two servers cannot both trim it): until then it holds at most the
    /// batch's notifications more than its limit. A trim that fails leaves the app to the next delivery's;
    /// the batch's deliveries, committed, are answered as stored all the same.
    public func commit(_ writes: [NotificationWrite]) async throws -> [Result<[DeviceChange], StoreError>] {
        // Each run of deliveries is one statement; a removal or an event between runs commits on its own, in
        // its place, so every device's writes keep their order.
        // Apps past their limits are trimmed once, after the whole batch, as every store trims them.
        var results: [Result<[DeviceChange], StoreError>] = []
        results.reserveCapacity(writes.count)
        var pastLimit: [NotificationLimit.StoredDelivery] = []
        var run: [Delivery] = []
        func storeRun() async throws {
            guard !run.isEmpty else { return }
            let stored = try await store(run, from: results.count)
            results += stored.results
            pastLimit += stored.pastLimit
            run = []
        }
        for write in writes {
            switch write {
            case .deliver(let request, let app, let date, let device, let limit):
                run.append(Delivery(request: request, app: app, date: date, device: device, notificationsPerApp: limit))
            case .receipted(let write, let receipt):
                try await storeRun()
                results.append(try await commit(write, receipt: receipt, position: results.count, pastLimit: &pastLimit))
            default:
                try await storeRun()
                results += try await commitEach([write])
            }
        }
        try await storeRun()
        await trim(pastLimit, into: &results)
        return results
    }

    public func trimNotifications(app: String, device token: String, limit: Int) async throws -> DeviceChange? {
        try await client.write(logger: logger) { connection in
            // The device's lock first, as every writer of the device takes it, then the count under it.
            guard let number = try await takeNextNumber(device: token, connection),
                let (appID, count) = try await connection.firstRow(
                    "SELECT id, notification_count FROM apps WHERE device_token = \(token) AND topic = \(app)", logger: logger
                )?.decode((Int64, Int64).self),
                count > limit
            else { return .rollBack(nil) }
            let oldest = try await connection.rows(
                """
                SELECT identifier FROM notifications WHERE app_id = \(appID)
                ORDER BY sequence LIMIT \(NotificationLimit.removedByTrimming(count: Int(count), limit: limit))
                """, logger: logger
            ).map { try $0.decode(String.self) }
            return try await removeNotifications(
                app: app, identifiers: oldest, deliveredThrough: nil, device: token, number: number, connection)
        }
    }

    /// Stores deliveries in one statement, forgets the changes the retention no longer keeps, and says why
    /// each delivery the statement left out was refused.
    /// - Parameter offset: the position of the first delivery in its batch, which `pastLimit` counts from.
    /// - Returns: each delivery's result, and the deliveries that took their apps past their limits.
    func store(
        _ deliveries: [Delivery], from offset: Int
    ) async throws -> (results: [Result<[DeviceChange], StoreError>], pastLimit: [NotificationLimit.StoredDelivery]) {
        let numbered = try await client.rows(DeliveryBatchStatement(deliveries: deliveries, serverID: instanceID), logger: logger)
        var changes: [Int: [DeviceChange]] = [:]
        var oldestKept: [String: UInt64] = [:]
        var pastLimit: [NotificationLimit.StoredDelivery] = []
        for (index, number, appCount) in numbered {
            let delivery = deliveries[index]
            let stamp = DeliveryStamp(date: delivery.date, sequence: number)
            let notification = DeliveredNotification(app: delivery.app, request: delivery.request, stamp: stamp)
            changes[index] = [DeviceChange(number: number, kind: .delivered(notification))]
            if let oldest = configuration.retention.oldestKept(afterRecording: number) {
                oldestKept[delivery.device] = max(oldest, oldestKept[delivery.device] ?? 0)
            }
            if let appCount, appCount > delivery.notificationsPerApp {
                pastLimit.append(.init(
                    position: offset + index, app: DeviceApp(device: delivery.device, topic: delivery.app), limit: delivery.notificationsPerApp))
            }
        }
        // The batch has committed: what follows keeps the database tidy, and a failure of it is logged, not
        // answered, since every delivery above is stored. The next delivery does it again.
        for (device, oldest) in oldestKept {
            do {
                try await forgetChanges(before: oldest, device: device)
            } catch {
                logger.warning("could not forget old changes after a delivery", metadata: ["device": "\(device)", "error": "\(error)"])
            }
        }
        var results: [Result<[DeviceChange], StoreError>] = []
        results.reserveCapacity(deliveries.count)
        for (index, delivery) in deliveries.enumerated() {
            if let change = changes[index] {
                results.append(.success(change))
                continue
            }
            // The statement left it out: its device has settings of its own, or no such app, or no longer exists.
            do {
                let (change, appCount) = try await deliverUnderSettings(delivery)
                results.append(.success([change]))
                if let appCount, appCount > delivery.notificationsPerApp {
                    pastLimit.append(.init(
                        position: offset + index, app: DeviceApp(device: delivery.device, topic: delivery.app), limit: delivery.notificationsPerApp))
                }
            } catch let error as StoreError where error.code == .notFound {
                results.append(.failure(error))
            }
        }
        return (results, pastLimit.sorted { $0.position < $1.position })
    }

    /// Stores one delivery in a transaction of its own that decides where it goes under the device's settings and
    /// the app's (``DeviceSettings/mark(for:app:appSettings:capabilities:at:)``), read under the device's lock.
    /// - Returns: its change, and its app's count when the delivery added a notification to it.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app.
    /// - Parameter receipt: stored in the same transaction.
    func deliverUnderSettings(_ delivery: Delivery, receipt: DeliveryReceipt? = nil) async throws -> (DeviceChange, Int?) {
        let (token, app, request) = (delivery.device, delivery.app, delivery.request)
        return try await client.write(logger: logger) { connection in
            guard let number = try await takeNextNumber(device: token, connection) else { throw StoreError(.notFound, "unknown device \(token)") }
            guard let appRow = try await connection.firstRow(
                "SELECT id, settings, capabilities FROM apps WHERE device_token = \(token) AND topic = \(app)", logger: logger)
            else { throw StoreError(.notFound, "device \(token) has no app \(app)") }
            if let receipt { try await insertFirst(receipt, connection) }
            let (appID, appSettingsText, capabilitiesText) = try appRow.decode((Int64, String, String?).self)
            let mark = try await self.settings(device: token, connection).mark(
                for: request, app: app, appSettings: try RowCodec.appSettings(appSettingsText, app: app),
                capabilities: try AppCapabilities.stored(capabilitiesText, app: app), at: delivery.date)
            let inserted = try await connection.firstRow(
                """
                INSERT INTO notifications (app_id, identifier, sequence, delivered_at, content, held, silenced_by)
                VALUES (
                    \(appID), \(request.identifier), \(Int64(number)), \(delivery.date.milliseconds),
                    \(RowCodec.contentText(request.content)), \(mark.heldColumn.map(Int32.init)), \(mark.silencedByColumn))
                ON CONFLICT (app_id, identifier) DO UPDATE SET
                    sequence = excluded.sequence, delivered_at = excluded.delivered_at, content = excluded.content, held = excluded.held,
                    silenced_by = excluded.silenced_by
                RETURNING xmax = 0
                """, logger: logger)?.decode(Bool.self) ?? false
            var appCount: Int?
            if inserted {
                appCount = (try await connection.firstRow(
                    """
                    UPDATE apps SET notification_count = notification_count + 1 WHERE id = \(appID) RETURNING notification_count
                    """, logger: logger)?.decode(Int64.self)).map(Int.init)
            }
            try await record(.delivered, topic: app, identifiers: [request.identifier], number: number, device: token, connection)
            let notification = DeliveredNotification(
                app: app, request: request, stamp: DeliveryStamp(date: delivery.date, sequence: number), mark: mark)
            return .commit((DeviceChange(number: number, kind: .delivered(notification)), appCount))
        }
    }

    /// Trims each app that deliveries took past its limit, once, counting again under the device's lock (the
    /// batch's removals since count); the trim joins the changes of the app's last delivery. A trim that fails
    /// is logged: its deliveries are stored, and the app's next delivery trims again.
    func trim(_ pastLimit: [NotificationLimit.StoredDelivery], into results: inout [Result<[DeviceChange], StoreError>]) async {
        for delivery in NotificationLimit.lastDeliveryPerApp(pastLimit) {
            do {
                if let trim = try await trimNotifications(app: delivery.app.topic, device: delivery.app.device, limit: delivery.limit) {
                    results[delivery.position] = results[delivery.position].map { $0 + [trim] }
                }
            } catch {
                logger.warning(
                    "could not trim an app past its notification limit",
                    metadata: ["device": "\(delivery.app.device)", "app": "\(delivery.app.topic)", "error": "\(error)"])
            }
        }
    }

    public func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) async throws -> [HoldingDevice] {
        try await client.read(logger: logger) { connection in
            var holding: [HoldingDevice] = []
            for row in try await connection.rows(
                """
                SELECT held.device_token, held.oldest, devices.last_change FROM (
                    SELECT apps.device_token, min(n.delivered_at) AS oldest
                    FROM notifications n JOIN apps ON apps.id = n.app_id WHERE n.held = 1 GROUP BY apps.device_token
                ) AS held JOIN devices ON devices.token = held.device_token ORDER BY held.device_token
                """, logger: logger
            ) {
                let (token, oldest, storedChange) = try row.decode((String, Int64, Int64).self)
                let lastChange = UInt64(storedChange)
                holding.append(HoldingDevice(
                    token: token, oldestHeld: Date(milliseconds: oldest), lastChange: lastChange,
                    settings: known[token] == lastChange ? nil : try await settings(device: token, connection)))
            }
            return holding
        }
    }

    public func deliverSummaries(device token: String, dueBy date: Date?) async throws -> [DeviceChange] {
        try await client.write(logger: logger) { connection in
            // The device's row locked first: a second server delivering at once waits, then finds nothing held.
            guard try await connection.firstRow("SELECT 1 FROM devices WHERE token = \(token) FOR UPDATE", logger: logger) != nil else {
                throw StoreError(.notFound, "unknown device \(token)")
            }
            let settings = try await self.settings(device: token, connection)
            let held = try await connection.rows(
                """
                SELECT n.identifier, apps.topic, n.sequence, n.delivered_at, n.content
                FROM notifications n JOIN apps ON apps.id = n.app_id WHERE apps.device_token = \(token) AND n.held = 1
                """, logger: logger
            ).map { row in
                let (identifier, topic, sequence, deliveredAt, content) = try row.decode((String, String, Int64, Int64, String).self)
                let notification = try RowCodec.notification(
                    identifier: identifier, topic: topic, sequence: sequence, deliveredAt: deliveredAt, contentText: content, held: true)
                return (notification: notification.heldInSummary, arrived: notification.date)
            }
            var changes: [DeviceChange] = []
            for summary in ScheduledSummary.due(held, settings: settings, dueBy: date) {
                // One statement for the summary's notifications, however many: not a round trip each under the lock.
                let notifications = summary.notifications
                try await connection.run(
                    """
                    UPDATE notifications SET held = NULL
                    FROM unnest(\(notifications.map(\.app)), \(notifications.map(\.identifier))) AS released(topic, identifier)
                        JOIN apps ON apps.device_token = \(token) AND apps.topic = released.topic
                    WHERE notifications.app_id = apps.id AND notifications.identifier = released.identifier
                    """, logger: logger)
                try await connection.run("UPDATE devices SET summary = \(summary.storedText) WHERE token = \(token)", logger: logger)
                guard let number = try await takeNextNumber(device: token, connection) else { throw StoreError(.notFound, "unknown device \(token)") }
                try await record(.summary, topic: "", number: number, device: token, summary: summary, connection)
                changes.append(DeviceChange(number: number, kind: .summary(summary)))
            }
            return changes.isEmpty ? .rollBack([]) : .commit(changes)
        }
    }

    /// Events go one transaction each (``commitEach(_:)``): pushes with nothing to show are rarer than those
    /// that show, and the delivery statement stays about notifications.
    public func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange {
        try await recordEvent(event, device: token, receipt: nil)
    }

    /// - Parameter receipt: stored in the same transaction.
    private func recordEvent(_ event: DeviceEvent, device token: String, receipt: DeliveryReceipt?) async throws -> DeviceChange {
        try await client.write(logger: logger) { connection in
            guard let number = try await takeNextNumber(device: token, connection) else {
                throw StoreError(.notFound, "unknown device \(token)")
            }
            guard try await connection.firstRow(
                "SELECT 1 FROM apps WHERE device_token = \(token) AND topic = \(event.app)", logger: logger) != nil
            else { throw StoreError(.notFound, "device \(token) has no app \(event.app)") }
            if let receipt { try await insertFirst(receipt, connection) }
            try await record(.event, topic: event.app, number: number, device: token, event: event, connection)
            return .commit(DeviceChange(number: number, kind: .event(event)))
        }
    }

    public func deleteNotifications(
        app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String
    ) async throws -> DeviceChange? {
        guard !identifiers.isEmpty else { return nil }
        return try await client.write(logger: logger) { connection in
            guard let number = try await takeNextNumber(device: token, connection) else { return .rollBack(nil) }
            return try await removeNotifications(
                app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token, number: number, connection)
        }
    }

    /// Deletes notifications of an app and records the removal as change `number` (taken in the same
    /// transaction); rolls back, giving the number back, when none was there.
    func removeNotifications(
        app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String, number: UInt64,
        _ connection: PostgresConnection
    ) async throws -> TransactionEnd<DeviceChange?> {
        let through = Int64(clamping: deliveredThrough ?? .max)
        let deleted = Set(try await connection.rows(
            """
            DELETE FROM notifications
            WHERE app_id = (SELECT id FROM apps WHERE device_token = \(token) AND topic = \(app))
                AND identifier = ANY(\(identifiers)) AND sequence <= \(through)
            RETURNING identifier
            """, logger: logger
        ).map { try $0.decode(String.self) })
        // In the order asked, once each, as the other stores report them.
        var reported: Set<String> = []
        let removed = identifiers.filter { deleted.contains($0) && reported.insert($0).inserted }
        guard !removed.isEmpty else { return .rollBack(nil) }
        try await connection.run(
            "UPDATE apps SET notification_count = notification_count - \(removed.count) WHERE device_token = \(token) AND topic = \(app)",
            logger: logger)
        try await record(.removed, topic: app, identifiers: removed, number: number, device: token, connection)
        return .commit(DeviceChange(number: number, kind: .removed(app: app, identifiers: removed)))
    }

    public func snapshot(device token: String) async throws -> DeviceSnapshot? {
        try await client.read(logger: logger) { connection in
            guard let row = try await connection.firstRow(
                "SELECT token, secret_hash, name, created_at, environment, platform, android_version, last_change FROM devices WHERE token = \(token)", logger: logger)
            else { return nil }
            let (device, lastChange) = try Self.deviceAndLastChange(row)
            let notifications = try await connection.rows(
                """
                SELECT n.identifier, apps.topic, n.sequence, n.delivered_at, n.content, n.held, n.silenced_by
                FROM notifications n JOIN apps ON apps.id = n.app_id WHERE apps.device_token = \(token) ORDER BY n.sequence
                """, logger: logger
            ).map { row in
                let (identifier, topic, sequence, deliveredAt, content, held, silencedBy) = try row.decode(
                    (String, String, Int64, Int64, String, Int32?, String?).self)
                return try RowCodec.notification(
                    identifier: identifier, topic: topic, sequence: sequence, deliveredAt: deliveredAt, contentText: content, held: held == 1,
                    silencedBy: silencedBy)
            }
            let summary = try await connection.firstRow("SELECT summary FROM devices WHERE token = \(token)", logger: logger)?
                .decode(String?.self)
            let events = try await connection.rows(
                """
                SELECT number, topic, detail FROM changes
                WHERE device_id = (SELECT id FROM devices WHERE token = \(token)) AND kind = \(ChangeRecord.Kind.event.rawValue)
                ORDER BY number DESC LIMIT \(DeviceEvent.keptPerDevice)
                """, logger: logger
            ).map { row in
                let (number, topic, detail) = try row.decode((Int64, String, String?).self)
                return RecordedEvent(number: UInt64(number), event: try DeviceEvent(app: topic, number: UInt64(number), detailText: detail ?? ""))
            }
            return DeviceSnapshot(
                device: device, apps: try await apps(device: token, connection), notifications: notifications,
                lastChange: UInt64(lastChange), events: events.reversed(), activities: try await activities(device: token, connection),
                settings: try await settings(device: token, connection),
                summary: try summary.map { text throws(StoreError) in try ScheduledSummary.stored(text, device: token) })
        }
    }

    public func changes(device token: String, after number: UInt64) async throws -> [DeviceChange]? {
        try await client.read(logger: logger) { connection in
            guard let (deviceID, oldestKept) = try await connection.firstRow(
                "SELECT id, oldest_kept_change FROM devices WHERE token = \(token)", logger: logger)?.decode((Int64, Int64).self),
                number >= UInt64(max(1, oldestKept)) - 1
            else { return nil }
            let rows = try await connection.rows(
                """
                SELECT c.number, c.kind, c.topic, c.identifiers, c.detail, n.identifier, n.sequence, n.delivered_at, n.content, n.held,
                    n.silenced_by
                FROM changes c
                    LEFT JOIN apps a ON c.kind = \(ChangeRecord.Kind.delivered.rawValue) AND a.device_token = \(token) AND a.topic = c.topic
                    LEFT JOIN notifications n ON n.app_id = a.id AND n.sequence = c.number
                WHERE c.device_id = \(deviceID) AND c.number > \(Int64(clamping: number)) ORDER BY c.number
                """, logger: logger)
            var apps: [String: AppRecord]?
            var activities: [LiveActivity]?
            var settings: DeviceSettings?
            var changes: [DeviceChange] = []
            for row in rows {
                let (changeNumber, kind, topic, identifiersText, detail, identifier, sequence, deliveredAt, content, held, silencedBy) = try row.decode(
                    (Int64, String, String, String, String?, String?, Int64?, Int64?, String?, Int32?, String?).self)
                let record = try ChangeRecord(
                    number: UInt64(changeNumber), kindName: kind, topic: topic, identifiersText: identifiersText, detailText: detail)
                var app: AppRecord?
                if record.kind == .appSaved {
                    if apps == nil {
                        apps = Dictionary(try await self.apps(device: token, connection).map { ($0.topic, $0) }) { $1 }
                    }
                    app = apps?[record.topic]
                }
                var notification: DeliveredNotification?
                if let identifier, let sequence, let deliveredAt, let content {
                    notification = try RowCodec.notification(
                        identifier: identifier, topic: topic, sequence: sequence, deliveredAt: deliveredAt, contentText: content,
                        held: held == 1, silencedBy: silencedBy)
                }
                if record.kind == .activities, activities == nil { activities = try await self.activities(device: token, connection) }
                if record.kind == .settings, settings == nil { settings = try await self.settings(device: token, connection) }
                changes.append(record.change(notification: notification, app: app, activities: activities ?? [], settings: settings ?? .newDevice))
            }
            return changes
        }
    }

    // MARK: Receipts

    /// A write with its receipt, in one transaction: a delivery as one under settings is stored, an event as recorded.
    private func commit(
        _ write: NotificationWrite, receipt: DeliveryReceipt, position: Int, pastLimit: inout [NotificationLimit.StoredDelivery]
    ) async throws -> Result<[DeviceChange], StoreError> {
        do {
            switch write {
            case .deliver(let request, let app, let date, let device, let limit):
                let (change, appCount) = try await deliverUnderSettings(
                    Delivery(request: request, app: app, date: date, device: device, notificationsPerApp: limit), receipt: receipt)
                if let appCount, appCount > limit {
                    pastLimit.append(.init(position: position, app: DeviceApp(device: device, topic: app), limit: limit))
                }
                return .success([change])
            case .record(let event, let device):
                return .success([try await recordEvent(event, device: device, receipt: receipt)])
            case .remove, .receipted:
                throw NotificationWrite.receiptRefused(on: write)
            }
        } catch let error as StoreError where error.code == .notFound {
            return .failure(error)
        } catch let error as StoreError where error.code == .conflict && error.message == Self.receiptStoredAlready.message {
            // Committed before: the commit queue retries every write of a batch that failed as a whole, this one
            // included, which went in its own transaction. Stored once, it changes nothing now.
            return .success([])
        }
    }

    /// What ends a receipted write's transaction (rolled back) whose receipt is stored: the write was committed with
    /// it, and is not committed again.
    private static let receiptStoredAlready = StoreError(.conflict, "the write's receipt is stored: the write was committed with it")

    /// Stores a receipted write's receipt, first in its transaction, which ends (rolled back) when the receipt is there
    /// already: its primary key decides, inside the commit.
    private func insertFirst(_ receipt: DeliveryReceipt, _ connection: PostgresConnection) async throws {
        let inserted = try await connection.rows(
            """
            INSERT INTO delivery_receipts (id, created_at, error, message) VALUES (\(receipt.id), \(receipt.createdAt.milliseconds), \(receipt.error), \(receipt.message))
            ON CONFLICT (id) DO NOTHING RETURNING 1
            """, logger: logger)
        guard !inserted.isEmpty else { throw Self.receiptStoredAlready }
    }

    private func insert(_ receipt: DeliveryReceipt, _ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO delivery_receipts (id, created_at, error, message) VALUES (\(receipt.id), \(receipt.createdAt.milliseconds), \(receipt.error), \(receipt.message))
            ON CONFLICT (id) DO UPDATE SET created_at = excluded.created_at, error = excluded.error, message = excluded.message
            """, logger: logger)
    }

    public func saveReceipts(_ receipts: [DeliveryReceipt]) async throws {
        guard !receipts.isEmpty else { return }
        try await client.write(logger: logger) { connection in
            for receipt in receipts { try await insert(receipt, connection) }
            return .commit(())
        }
    }

    public func receipts(ids: [String], keptSince: Date) async throws -> [DeliveryReceipt] {
        guard !ids.isEmpty else { return [] }
        return try await client.read(logger: logger) { connection in
            try await connection.rows(
                """
                SELECT id, created_at, error, message FROM delivery_receipts
                WHERE id = ANY(\(Array(Set(ids)))) AND created_at >= \(keptSince.milliseconds)
                """, logger: logger
            ).map { row in
                let (id, createdAt, error, message) = try row.decode((String, Int64, String?, String?).self)
                return DeliveryReceipt(id: id, createdAt: Date(milliseconds: createdAt), error: error, message: message)
            }
        }
    }

    public func forgetReceipts(createdBefore date: Date, keepingAtMost count: Int) async throws -> Int {
        try await client.write(logger: logger) { connection in
            let old = try await connection.rows(
                "DELETE FROM delivery_receipts WHERE created_at < \(date.milliseconds) RETURNING 1", logger: logger
            ).count
            // Those past the newest `count`: one statement, so that two servers forgetting at once forget no more than it.
            let past = try await connection.rows(
                """
                DELETE FROM delivery_receipts WHERE id IN (
                    SELECT id FROM delivery_receipts ORDER BY created_at DESC OFFSET \(Int64(max(count, 0))))
                RETURNING 1
                """, logger: logger
            ).count
            return .commit(old + past)
        }
    }
}
