public import Foundation
public import HuddleCore
public import Logging
import PostgresNIO
public import ServiceLifecycle

/// A ``NotificationStore`` in a PostgreSQL database, which several Huddle servers may share.
///
/// Every write to a device's center takes the device's next change number by updating the device's row
/// first, in the write's own transaction: the row lock orders writers to one device across servers, so
/// numbers are given without gaps and in commit order, and a write that turns out to change nothing rolls
/// back to give its number back. The same transaction records the change in `changes` and announces it
/// with `pg_notify` on `huddle_changes`, which PostgreSQL delivers to the other servers at commit; a
/// write returns only after COMMIT.
///
/// The store is a `Service`: ``run()`` runs its connection pool and the listener behind
/// ``noticesFromOtherServers()`` until graceful shutdown, and no query is served while it is not running.
/// The schema must be migrated first (``PostgresMigrations/migrate(_:logger:)``). Values reach SQL only
/// as bound parameters: through `PostgresQuery` interpolation, or a prepared statement's bindings
/// (``DeliveryBatchStatement``).
public final class PostgresNotificationStore: NotificationStore, Service {
    /// Options with defaults suited to a server.
    public struct Configuration: Sendable {
        /// How many recent changes of each device are kept for servers and streams catching up.
        public var retention = ChangeRetention()
        /// The most connections the store opens; one of them stays with the listener.
        public var maximumConnections = 20
        /// How long the listener waits before it connects again after losing its connection.
        public var reconnectDelay: Duration = .seconds(1)
        /// How often the listener checks that its connection is alive: an idle connection whose server
        /// vanished without a word would otherwise wait for notices forever.
        public var heartbeatInterval: Duration = .seconds(15)
        /// How long the listening connection may take to answer its heartbeat before it counts as lost.
        public var heartbeatTimeout: Duration = .seconds(5)
        /// How long stopping waits for the connections to close, within a server's shutdown deadline.
        public var stopTimeout: Duration = .seconds(3)

        public init() {}
    }

    private let client: PostgresClient
    /// The database, for the listener's own connection (outside the pool).
    private let database: PostgresURL
    private let configuration: Configuration
    private let logger: Logger
    /// Names this store instance in the notices it sends, so that its listener can drop them.
    private let instanceID = UUID().uuidString.lowercased()
    private let subscribers = ChangeNoticeSubscribers()

    /// Prepares a store of the database at `database`; nothing connects before ``run()``.
    public init(database: PostgresURL, configuration: Configuration = Configuration(), logger: Logger) {
        var clientConfiguration = database.clientConfiguration
        clientConfiguration.options.maximumConnections = max(2, configuration.maximumConnections)
        // The pool logs every failed connection attempt; the store reports what matters itself, so the
        // pool's own lines show only when debugging.
        var poolLogger = logger
        if poolLogger.logLevel > .debug { poolLogger.logLevel = .error }
        client = PostgresClient(configuration: clientConfiguration, backgroundLogger: poolLogger)
        self.database = database
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs the connection pool and the listener until graceful shutdown (or cancellation), then ends
    /// every stream of notices.
    public func run() async throws {
        // The pool and the listener run as tasks of their own so that stopping them is bounded: after a
        // cancellation, postgres-nio's pool sometimes waits on a connection that is still closing, and a
        // server must stop within its shutdown deadline. A stream is the stop signal rather than
        // ServiceLifecycle's `gracefulShutdown()`, which could miss a cancellation that came as it started
        // waiting.
        let pool = Task { await client.run() }
        let listener = Task { await listen() }
        let (stopRequests, requestStop) = AsyncStream<Void>.makeStream()
        await withGracefulShutdownHandler {
            // Ends when a stop is requested, or at once when this task is cancelled.
            for await _ in stopRequests {}
        } onGracefulShutdown: {
            requestStop.finish()
        }
        subscribers.finish()
        listener.cancel()
        pool.cancel()
        let stopped = await Self.result(
            of: {
                await listener.value
                await pool.value
                return true
            }, within: configuration.stopTimeout, otherwise: false)
        // Not a failure: postgres-nio sometimes waits on a connection that is still closing; the process goes on.
        if !stopped { logger.notice("the PostgreSQL connections were still closing after \(configuration.stopTimeout); not waiting for them") }
    }

    /// What `operation` returns, or `fallback` when it takes longer than `limit`. The operation runs in a
    /// task of its own, cancelled and left behind if it is late: what is waited for here (postgres-nio
    /// closing or querying a dropped connection) does not always end when cancelled.
    private static func result<Value: Sendable>(
        of operation: @escaping @Sendable () async -> Value, within limit: Duration, otherwise fallback: Value
    ) async -> Value {
        let (results, deliver) = AsyncStream<Value>.makeStream()
        let work = Task { deliver.yield(await operation()) }
        let timer = Task {
            try? await Task.sleep(for: limit)
            deliver.yield(fallback)
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        for await value in results { return value }
        return fallback
    }

    // MARK: Devices

    public func createDevice(_ device: DeviceRecord, maximumDevices: Int) async throws {
        try await client.write(logger: logger) { connection in
            if maximumDevices < Int.max {
                // Registrations take turns on a lock of the transaction, so that each counts the others'
                // devices: under READ COMMITTED two counts at once would both see room for one more.
                try await connection.run("SELECT pg_advisory_xact_lock(\(Self.registrationLock))", logger: logger)
                let count = try await connection.firstRow("SELECT count(*) FROM devices", logger: logger)?.decode(Int64.self) ?? 0
                guard count < maximumDevices else { throw UpdateRefusal.tooManyDevices(Int(count)) }
            }
            let inserted = try await connection.firstRow(
                """
                INSERT INTO devices (token, secret_hash, name, created_at, environment, platform, android_version)
                VALUES (
                    \(device.token), \(device.secretHash), \(device.name), \(device.createdAt.milliseconds), \(device.environment.rawValue),
                    \(device.kind.name), \(device.kind.androidVersion))
                ON CONFLICT (token) DO NOTHING RETURNING token
                """, logger: logger)
            guard inserted != nil else { throw StoreError(.conflict, "device \(device.token) exists") }
            try await connection.run("DELETE FROM unregistered_devices WHERE token = \(device.token)", logger: logger)
            return .commit(())
        }
    }

    public func device(token: String) async throws -> DeviceRecord? {
        try await client.rows(
            "SELECT token, secret_hash, name, created_at, environment, platform, android_version FROM devices WHERE token = \(token)", logger: logger, Self.device
        ).first
    }

    public func devices(newestFirst limit: Int) async throws -> [DeviceRecord] {
        try await client.rows(
            "SELECT token, secret_hash, name, created_at, environment, platform, android_version FROM devices ORDER BY created_at DESC, token DESC LIMIT \(limit)",
            logger: logger, Self.device)
    }

    public func deviceCount() async throws -> Int {
        let count = try await client.rows("SELECT count(*) FROM devices", logger: logger) { try $0.decode(Int64.self) }.first
        return Int(count ?? 0)
    }

    public func deleteDevice(token: String, at date: Date) async throws -> Bool {
        try await client.write(logger: logger) { connection in
            guard try await connection.firstRow("DELETE FROM devices WHERE token = \(token) RETURNING token", logger: logger) != nil else {
                return .rollBack(false)
            }
            try await connection.run(
                """
                INSERT INTO unregistered_devices (token, unregistered_at) VALUES (\(token), \(date.milliseconds))
                ON CONFLICT (token) DO UPDATE SET unregistered_at = excluded.unregistered_at
                """, logger: logger)
            try await notify(.deleted, device: token, connection)
            return .commit(true)
        }
    }

    public func unregistrationDate(token: String) async throws -> Date? {
        try await client.rows("SELECT unregistered_at FROM unregistered_devices WHERE token = \(token)", logger: logger) {
            Date(milliseconds: try $0.decode(Int64.self))
        }.first
    }

    // MARK: Apps

    /// The advisory lock registrations take, so that they count devices one at a time (any fixed number).
    private static let registrationLock: Int64 = 0x4875_6464_6C65_0001
    /// The first key of the two-key advisory locks that channel creations take per app and environment.
    private static let channelLockClass: Int32 = 0x4875_6402

    public func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange {
        try await UpdateRefusal.unwrapping {
            try await client.write(logger: logger) { connection in
                .commit(try await self.updateApp(topic: topic, device: token, maximumApps: maximumApps, update, connection))
            }
        }
    }

    /// Takes the device's next number first: that locks the device's row until the transaction ends, so
    /// changes of one device take turns, and each reads the app as the one before it left it.
    private func updateApp(
        topic: String, device token: String, maximumApps: Int, _ update: AppUpdate, _ connection: PostgresConnection
    ) async throws -> DeviceChange {
        guard let number = try await takeNextNumber(device: token, connection) else {
            throw StoreError(.notFound, "unknown device \(token)")
        }
        let current = try await apps(device: token, topic: topic, connection).first
        let app = try UpdateRefusal.apply(update, to: current, topic: topic)
        if current == nil {
            let count = try await connection.firstRow("SELECT count(*) FROM apps WHERE device_token = \(token)", logger: logger)?
                .decode(Int64.self) ?? 0
            try UpdateRefusal.checkRoom(count: Int(count), maximum: maximumApps)
        }
        let settings = RowCodec.settingsText(app)
        let categories = RowCodec.categoriesText(app)
        let activityTypes = RowCodec.activityTypesText(app)
        let capabilities = app.capabilities.storedText
        let firebase = app.firebase.storedText
        try await connection.run(
            """
            INSERT INTO apps (
                device_token, topic, display_name, development_language, settings, categories, activity_types, capabilities, fcm_token, firebase)
            VALUES (
                \(token), \(topic), \(app.displayName), \(app.developmentLanguage), \(settings), \(categories), \(activityTypes),
                \(capabilities), \(app.firebase.registrationToken), \(firebase))
            ON CONFLICT (device_token, topic) DO UPDATE SET
                display_name = excluded.display_name, development_language = excluded.development_language,
                settings = excluded.settings, categories = excluded.categories, activity_types = excluded.activity_types,
                capabilities = excluded.capabilities, fcm_token = excluded.fcm_token, firebase = excluded.firebase
            """, logger: logger)
        // Taken out of the summary (or the summary off): its held notifications are held no more.
        if !(try await self.settings(device: token, connection)).holds(appSettings: app.settings) {
            try await releaseHeld(app: topic, device: token, connection)
        }
        // Only the files that changed are written: an upload of one file rewrites no other.
        let files = app.localizationChanges(from: current)
        for path in files.deleted {
            try await connection.run(
                "DELETE FROM localization_files WHERE device_token = \(token) AND topic = \(topic) AND path = \(path)", logger: logger)
        }
        for (path, data) in files.written {
            try await connection.run(
                """
                INSERT INTO localization_files (device_token, topic, path, data) VALUES (\(token), \(topic), \(path), \(data))
                ON CONFLICT (device_token, topic, path) DO UPDATE SET data = excluded.data
                """, logger: logger)
        }
        try await record(.appSaved, topic: topic, number: number, device: token, connection)
        return DeviceChange(number: number, kind: .appSaved(app))
    }

    public func apps(device token: String) async throws -> [AppRecord] {
        try await client.read(logger: logger) { connection in try await self.apps(device: token, connection) }
    }

    public func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) async throws -> DeviceChange? {
        try await UpdateRefusal.unwrapping {
            try await client.write(logger: logger) { connection in
                // The device's row is locked first (its number), so the app checked is the app removed.
                guard let number = try await takeNextNumber(device: token, connection) else { return .rollBack(nil) }
                if let precondition {
                    guard let app = try await apps(device: token, topic: topic, connection).first else { return .rollBack(nil) }
                    try UpdateRefusal.check(precondition, app)
                }
                guard try await connection.firstRow(
                    "DELETE FROM apps WHERE device_token = \(token) AND topic = \(topic) RETURNING topic", logger: logger) != nil
                else { return .rollBack(nil) }
                // Its Live Activities go with it, as they do when an app is deleted from an iPhone.
                let activities = try await activities(device: token, connection)
                if activities.contains(where: { $0.app == topic }) {
                    try await saveActivities(activities.filter { $0.app != topic }, replacing: activities, device: token, connection)
                }
                try await record(.appDeleted, topic: topic, number: number, device: token, connection)
                return .commit(DeviceChange(number: number, kind: .appDeleted(topic: topic)))
            }
        }
    }

    // MARK: Notifications

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
            if case .deliver(let request, let app, let date, let device, let limit) = write {
                run.append(Delivery(request: request, app: app, date: date, device: device, notificationsPerApp: limit))
                continue
            }
            try await storeRun()
            results += try await commitEach([write])
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

    private typealias Delivery = DeliveryBatchStatement.Delivery

    /// Stores deliveries to any devices in one statement (``DeliveryBatchStatement``), then trims the apps it
    /// took past their limits.
    private func deliver(_ deliveries: [Delivery]) async throws -> [Result<[DeviceChange], StoreError>] {
        var (results, pastLimit) = try await store(deliveries, from: 0)
        await trim(pastLimit, into: &results)
        return results
    }

    /// Stores deliveries in one statement, forgets the changes the retention no longer keeps, and says why
    /// each delivery the statement left out was refused.
    /// - Parameter offset: the position of the first delivery in its batch, which `pastLimit` counts from.
    /// - Returns: each delivery's result, and the deliveries that took their apps past their limits.
    private func store(
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
    private func deliverUnderSettings(_ delivery: Delivery) async throws -> (DeviceChange, Int?) {
        let (token, app, request) = (delivery.device, delivery.app, delivery.request)
        return try await client.write(logger: logger) { connection in
            guard let number = try await takeNextNumber(device: token, connection) else { throw StoreError(.notFound, "unknown device \(token)") }
            guard let appRow = try await connection.firstRow(
                "SELECT id, settings, capabilities FROM apps WHERE device_token = \(token) AND topic = \(app)", logger: logger)
            else { throw StoreError(.notFound, "device \(token) has no app \(app)") }
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
    private func trim(_ pastLimit: [NotificationLimit.StoredDelivery], into results: inout [Result<[DeviceChange], StoreError>]) async {
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

    public func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) async throws -> [DeviceChange] {
        try await UpdateRefusal.unwrapping {
            try await client.write(logger: logger) { connection in
                // The device's row is locked first (its number), so the activities read are those replaced: two
                // servers applying pushes to one device take turns.
                guard let number = try await takeNextNumber(device: token, connection) else {
                    throw StoreError(.notFound, "unknown device \(token)")
                }
                guard let typesRow = try await connection.firstRow(
                    "SELECT activity_types FROM apps WHERE device_token = \(token) AND topic = \(topic)", logger: logger)
                else { throw StoreError(.notFound, "device \(token) has no app \(topic)") }
                let declarations = try RowCodec.activityDeclarations(try typesRow.decode(String?.self), app: topic)
                let stored = try await activities(device: token, connection)
                var activities = stored
                let event = try UpdateRefusal.check(update, &activities, declarations)
                // The number taken first is the first change's; a second change takes the next.
                var nextNumber: UInt64? = number
                func takeNumber() async throws -> UInt64 {
                    if let taken = nextNumber {
                        nextNumber = nil
                        return taken
                    }
                    guard let next = try await takeNextNumber(device: token, connection) else { throw StoreError(.notFound, "unknown device \(token)") }
                    return next
                }
                var changes: [DeviceChange] = []
                if activities != stored {
                    try await saveActivities(activities, replacing: stored, device: token, connection)
                    let changeNumber = try await takeNumber()
                    try await record(.activities, topic: topic, number: changeNumber, device: token, connection)
                    changes.append(DeviceChange(number: changeNumber, kind: .activities(activities)))
                }
                if let event {
                    let eventNumber = try await takeNumber()
                    try await record(.event, topic: topic, number: eventNumber, device: token, event: event, connection)
                    changes.append(DeviceChange(number: eventNumber, kind: .event(event)))
                }
                // Nothing changed and nothing happened: the number taken is given back with the transaction.
                return changes.isEmpty ? .rollBack([]) : .commit(changes)
            }
        }
    }

    public func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) async throws -> DeviceChange? {
        try await UpdateRefusal.unwrapping {
            try await client.write(logger: logger) { connection in
                // The device's row is locked first (its number), so the settings read are those replaced.
                guard let number = try await takeNextNumber(device: token, connection) else {
                    throw StoreError(.notFound, "unknown device \(token)")
                }
                let stored = try await settings(device: token, connection)
                let settings = try UpdateRefusal.check(update, stored)
                // Unchanged: the number taken is given back with the transaction.
                guard settings != stored else { return .rollBack(nil) }
                try await connection.run("UPDATE devices SET settings = \(settings.storedText) WHERE token = \(token)", logger: logger)
                try await releaseHeld(device: token, settings: settings, connection)
                try await record(.settings, topic: "", number: number, device: token, connection)
                return .commit(DeviceChange(number: number, kind: .settings(settings)))
            }
        }
    }

    /// Hands over the held notifications of the apps whose notifications `settings` no longer hold.
    private func releaseHeld(device token: String, settings: DeviceSettings, _ connection: PostgresConnection) async throws {
        guard settings.summary.isEnabled else {
            try await connection.run(
                "UPDATE notifications SET held = NULL WHERE app_id IN (SELECT id FROM apps WHERE device_token = \(token)) AND held = 1",
                logger: logger)
            return
        }
        let holding = try await connection.rows(
            """
            SELECT apps.topic, apps.settings FROM apps
            WHERE apps.device_token = \(token) AND EXISTS (SELECT 1 FROM notifications n WHERE n.app_id = apps.id AND n.held = 1)
            """, logger: logger)
        for row in holding {
            let (topic, settingsText) = try row.decode((String, String).self)
            guard !settings.holds(appSettings: try RowCodec.appSettings(settingsText, app: topic)) else { continue }
            try await releaseHeld(app: topic, device: token, connection)
        }
    }

    /// Hands over the held notifications of one app.
    private func releaseHeld(app topic: String, device token: String, _ connection: PostgresConnection) async throws {
        try await connection.run(
            """
            UPDATE notifications SET held = NULL
            WHERE app_id = (SELECT id FROM apps WHERE device_token = \(token) AND topic = \(topic)) AND held = 1
            """, logger: logger)
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

    private func settings(device token: String, _ connection: PostgresConnection) async throws -> DeviceSettings {
        let text = try await connection.firstRow("SELECT settings FROM devices WHERE token = \(token)", logger: logger)?.decode(String?.self)
        return try DeviceSettings.stored(text ?? nil, device: token)
    }

    private func activities(device token: String, _ connection: PostgresConnection) async throws -> [LiveActivity] {
        let text = try await connection.firstRow("SELECT activities FROM devices WHERE token = \(token)", logger: logger)?.decode(String?.self)
        return try LiveActivity.stored(text ?? nil, device: token)
    }

    /// Stores a device's activities in place of `stored`, and the channels they listen on beside them (migration 011),
    /// rewritten only when those changed: most writes are an activity's new content, on the channels it had.
    private func saveActivities(
        _ activities: [LiveActivity], replacing stored: [LiveActivity], device token: String, _ connection: PostgresConnection
    ) async throws {
        let text = activities.isEmpty ? nil : LiveActivity.storedText(activities)
        try await connection.run("UPDATE devices SET activities = \(text) WHERE token = \(token)", logger: logger)
        let channels = LiveActivity.channels(of: activities)
        guard channels != LiveActivity.channels(of: stored) else { return }
        try await connection.run("DELETE FROM activity_channels WHERE device_token = \(token)", logger: logger)
        guard !channels.isEmpty else { return }
        try await connection.run(
            """
            INSERT INTO activity_channels (channel_id, app, device_token)
            SELECT channel, app, \(token) FROM unnest(\(channels.map(\.channel))::text[], \(channels.map(\.app))::text[]) AS c(channel, app)
            """, logger: logger)
    }

    /// Events go one transaction each (``commitEach(_:)``): pushes with nothing to show are rarer than those
    /// that show, and the delivery statement stays about notifications.
    public func recordEvent(_ event: DeviceEvent, device token: String) async throws -> DeviceChange {
        try await client.write(logger: logger) { connection in
            guard let number = try await takeNextNumber(device: token, connection) else {
                throw StoreError(.notFound, "unknown device \(token)")
            }
            guard try await connection.firstRow(
                "SELECT 1 FROM apps WHERE device_token = \(token) AND topic = \(event.app)", logger: logger) != nil
            else { throw StoreError(.notFound, "device \(token) has no app \(event.app)") }
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
    private func removeNotifications(
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

    // MARK: Following a device

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
                changes.append(record.change(notification: notification, app: app, activities: activities ?? [], settings: settings ?? .iPhoneDefaults))
            }
            return changes
        }
    }

    /// Notices of the changes other servers (other store instances) commit: every consumer that asks
    /// gets a stream of its own, which ends when the store shuts down.
    ///
    /// `.resync` comes each time the listening connection is established while the stream is open,
    /// the first time included: notices committed before it listened, or while it was reconnecting,
    /// never arrive, so the consumer checks the devices it follows.
    public func noticesFromOtherServers() -> AsyncStream<ChangeNotice>? {
        subscribers.subscribe()
    }

    // MARK: Signing keys

    public func saveSigningKey(_ key: SigningKeyRecord) async throws {
        let topics = RowCodec.topicsText(key)
        let environments = RowCodec.environmentsText(key)
        _ = try await client.rows(
            """
            INSERT INTO signing_keys (key_id, team_id, public_key, topics, created_at, environments)
            VALUES (\(key.keyID), \(key.teamID), \(key.publicKeyPEM), \(topics), \(key.createdAt.milliseconds), \(environments))
            ON CONFLICT (key_id) DO UPDATE SET team_id = excluded.team_id, public_key = excluded.public_key,
                topics = excluded.topics, created_at = excluded.created_at, environments = excluded.environments
            """, logger: logger) { _ in }
    }

    public func signingKey(id: String) async throws -> SigningKeyRecord? {
        try await client.rows(
            "SELECT key_id, team_id, public_key, topics, created_at, environments FROM signing_keys WHERE key_id = \(id)", logger: logger,
            Self.signingKey
        ).first
    }

    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await client.rows(
            "SELECT key_id, team_id, public_key, topics, created_at, environments FROM signing_keys ORDER BY key_id", logger: logger, Self.signingKey)
    }

    public func deleteSigningKey(id: String) async throws -> Bool {
        try await !client.rows("DELETE FROM signing_keys WHERE key_id = \(id) RETURNING key_id", logger: logger) { _ in }.isEmpty
    }

    // MARK: Firebase Cloud Messaging

    public func saveServiceAccount(_ account: ServiceAccountRecord) async throws {
        _ = try await client.rows(
            """
            INSERT INTO service_accounts (key_id, project, client_email, public_key, created_at)
            VALUES (\(account.keyID), \(account.project), \(account.clientEmail), \(account.publicKeyPEM), \(account.createdAt.milliseconds))
            ON CONFLICT (key_id) DO UPDATE SET project = excluded.project, client_email = excluded.client_email,
                public_key = excluded.public_key, created_at = excluded.created_at
            """, logger: logger) { _ in }
    }

    public func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? {
        try await client.rows(
            "SELECT key_id, project, client_email, public_key, created_at FROM service_accounts WHERE key_id = \(keyID)", logger: logger,
            Self.serviceAccount
        ).first
    }

    public func serviceAccounts() async throws -> [ServiceAccountRecord] {
        try await client.rows(
            "SELECT key_id, project, client_email, public_key, created_at FROM service_accounts ORDER BY key_id", logger: logger, Self.serviceAccount)
    }

    public func deleteServiceAccount(keyID: String) async throws -> Bool {
        try await !client.rows("DELETE FROM service_accounts WHERE key_id = \(keyID) RETURNING key_id", logger: logger) { _ in }.isEmpty
    }

    public func firebaseRecipient(registrationToken: String) async throws -> FirebaseRecipient? {
        try await client.read(logger: logger) { connection in
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT devices.token, devices.secret_hash, devices.name, devices.created_at, devices.environment, devices.platform,
                        devices.android_version, apps.topic, apps.firebase
                    FROM apps JOIN devices ON devices.token = apps.device_token WHERE apps.fcm_token = \(registrationToken)
                    """, logger: logger)
            else { return nil }
            let (token, secretHash, name, createdAt, environment, platform, androidVersion, topic, firebaseText) = try row.decode(
                (String, String, String, Int64, String, String, Int?, String, String?).self)
            let device = try RowCodec.device(
                token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
                androidVersion: androidVersion)
            return FirebaseRecipient(
                device: device, app: topic, installation: try FirebaseInstallation.stored(token: registrationToken, firebaseText, app: topic))
        }
    }

    public func registrationToken(installationID: String) async throws -> String? {
        guard FirebaseInstallation.isInstallationID(installationID) else { return nil }
        // The tokens that begin with the ID and its colon, compared by bytes (~>=~, ~<~), which migration 013's
        // text_pattern_ops index answers whatever the database's collation.
        let bounds = FirebaseInstallation.registrationTokenBounds(installationID: installationID)
        let (lower, upper) = (bounds.lowerBound, bounds.upperBound)
        return try await client.read(logger: logger) { connection in
            try await connection.firstRow(
                "SELECT fcm_token FROM apps WHERE fcm_token ~>=~ \(lower) AND fcm_token ~<~ \(upper) ORDER BY fcm_token LIMIT 1",
                logger: logger)?.decode(String.self)
        }
    }

    public func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) async throws -> Bool {
        try await client.write(logger: logger) { connection in
            // The app's row, locked: subscriptions of one token take turns, so that each counts the others'.
            guard
                let app = try await connection.firstRow(
                    "SELECT topic, firebase FROM apps WHERE fcm_token = \(registrationToken) FOR UPDATE", logger: logger)
            else {
                throw StoreError(.notFound, "no app has registration token \(registrationToken.prefix(40))")
            }
            let (topicOfApp, firebaseText) = try app.decode((String, String?).self)
            try UpdateRefusal.checkProject(
                try FirebaseInstallation.stored(token: registrationToken, firebaseText, app: topicOfApp), subscribingUnder: project)
            let exists = try await connection.firstRow(
                """
                SELECT 1 FROM topic_subscriptions WHERE project = \(project) AND topic = \(topic) AND fcm_token = \(registrationToken)
                """, logger: logger) != nil
            guard !exists else { return .commit(false) }
            let count = try await connection.firstRow(
                "SELECT count(*) FROM topic_subscriptions WHERE fcm_token = \(registrationToken)", logger: logger)?.decode(Int64.self) ?? 0
            guard count < maximumTopics else { throw UpdateRefusal.tooManyTopics(Int(count)) }
            try await connection.run(
                """
                INSERT INTO topic_subscriptions (fcm_token, project, topic, created_at)
                VALUES (\(registrationToken), \(project), \(topic), \(date.milliseconds))
                """, logger: logger)
            return .commit(true)
        }
    }

    public func unsubscribe(registrationToken: String, project: String, topic: String) async throws -> Bool {
        try await !client.rows(
            """
            DELETE FROM topic_subscriptions WHERE project = \(project) AND topic = \(topic) AND fcm_token = \(registrationToken) RETURNING topic
            """, logger: logger
        ) { _ in }.isEmpty
    }

    public func subscribers(project: String, toAnyOf topics: [String]) async throws -> [(registrationToken: String, topics: Set<String>)] {
        guard !topics.isEmpty else { return [] }
        let rows = try await client.rows(
            "SELECT fcm_token, topic FROM topic_subscriptions WHERE project = \(project) AND topic = ANY(\(topics))", logger: logger
        ) { row in try row.decode((String, String).self) }
        var subscribed: [String: Set<String>] = [:]
        for (token, topic) in rows { subscribed[token, default: []].insert(topic) }
        return subscribed.sorted { $0.key < $1.key }.map { (registrationToken: $0.key, topics: $0.value) }
    }

    // MARK: Broadcast channels

    public func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) async throws {
        let app = channel.app
        let environment = channel.environment.rawValue
        try await client.write(logger: logger) { connection in
            // Creations for one app and environment take turns, so that each counts the others' channels (as
            // registrations do for devices).
            try await connection.run(
                "SELECT pg_advisory_xact_lock(\(Self.channelLockClass), hashtext(\(app + "/" + environment)))", logger: logger)
            let count = try await connection.firstRow(
                "SELECT count(*) FROM broadcast_channels WHERE app = \(app) AND environment = \(environment)", logger: logger
            )?.decode(Int64.self) ?? 0
            guard count < maximumPerApp else { throw UpdateRefusal.tooManyChannels(Int(count), app: app) }
            try await connection.run(
                """
                INSERT INTO broadcast_channels (id, app, environment, storage_policy, created_at, last_message)
                VALUES (\(channel.id), \(app), \(environment), \(Int64(channel.storagePolicy.rawValue)), \(channel.createdAt.milliseconds),
                    \(channel.lastMessage?.storedText))
                """, logger: logger)
            return .commit(())
        }
    }

    public func channel(id: String) async throws -> BroadcastChannel? {
        try await client.rows(
            "SELECT id, app, environment, storage_policy, created_at, last_message FROM broadcast_channels WHERE id = \(id)",
            logger: logger
        ) { row in
            let (id, app, environment, policy, createdAt, lastMessage) = try row.decode((String, String, String, Int64, Int64, String?).self)
            return try RowCodec.channel(
                id: id, app: app, environment: environment, storagePolicy: policy, createdAt: createdAt, lastMessage: lastMessage)
        }.first
    }

    public func channels(app: String, environment: APNsEnvironment) async throws -> [String] {
        try await client.rows(
            "SELECT id FROM broadcast_channels WHERE app = \(app) AND environment = \(environment.rawValue) ORDER BY created_at, id",
            logger: logger
        ) { try $0.decode(String.self) }
    }

    public func deleteChannel(id: String) async throws -> Bool {
        try await !client.rows("DELETE FROM broadcast_channels WHERE id = \(id) RETURNING id", logger: logger) { _ in }.isEmpty
    }

    public func storeBroadcast(_ message: StoredBroadcast, channel id: String) async throws -> Bool {
        try await !client.rows(
            "UPDATE broadcast_channels SET last_message = \(message.storedText) WHERE id = \(id) RETURNING id", logger: logger
        ) { _ in }.isEmpty
    }

    public func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) async throws -> [String] {
        try await client.rows(
            """
            SELECT devices.token FROM activity_channels JOIN devices ON devices.token = activity_channels.device_token
            WHERE activity_channels.channel_id = \(channel) AND activity_channels.app = \(app) AND devices.environment = \(environment.rawValue)
            ORDER BY devices.token
            """, logger: logger
        ) { try $0.decode(String.self) }
    }

    // MARK: Changes

    /// Takes the device's next change number, locking the device's row until the transaction ends.
    /// - Returns: `nil` for an unknown device.
    private func takeNextNumber(device token: String, _ connection: PostgresConnection) async throws -> UInt64? {
        try await connection.firstRow(
            "UPDATE devices SET last_change = last_change + 1 WHERE token = \(token) RETURNING last_change", logger: logger
        ).map { UInt64(try $0.decode(Int64.self)) }
    }

    /// Records change `number` in the journal, forgets old ones as the retention says, and announces the
    /// change to the other servers (delivered when the transaction commits).
    private func record(
        _ kind: ChangeRecord.Kind, topic: String, identifiers: [String] = [], number: UInt64, device token: String,
        event: DeviceEvent? = nil, summary: ScheduledSummary? = nil, _ connection: PostgresConnection
    ) async throws {
        let record = ChangeRecord(number: number, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary)
        try await connection.run(
            """
            INSERT INTO changes (device_id, number, kind, topic, identifiers, detail)
            VALUES ((SELECT id FROM devices WHERE token = \(token)), \(Int64(number)), \(kind.rawValue), \(topic), \(record.identifiersText), \(record.detailText))
            """, logger: logger)
        if let oldestKept = configuration.retention.oldestKept(afterRecording: number) {
            try await forgetChanges(before: oldestKept, device: token, connection)
        }
        try await notify(.changed(number), device: token, connection)
    }

    /// Forgets a device's changes numbered below `oldestKept`, in the caller's transaction or (for a
    /// delivery, which has committed already) in one of its own. The mark only moves forward, so two
    /// writers forgetting at once cannot move it back.
    private func forgetChanges(before oldestKept: UInt64, device token: String, _ connection: PostgresConnection? = nil) async throws {
        let forget: @Sendable (PostgresConnection) async throws -> Void = { [logger] connection in
            try await connection.run(
                "DELETE FROM changes WHERE device_id = (SELECT id FROM devices WHERE token = \(token)) AND number < \(Int64(oldestKept))",
                logger: logger)
            try await connection.run(
                """
                UPDATE devices SET oldest_kept_change = GREATEST(oldest_kept_change, \(Int64(oldestKept))) WHERE token = \(token)
                """, logger: logger)
        }
        if let connection {
            try await forget(connection)
        } else {
            try await client.write(logger: logger) { connection in
                try await forget(connection)
                return .commit(())
            }
        }
    }

    private func notify(_ event: ChangeNoticePayload.Event, device token: String, _ connection: PostgresConnection) async throws {
        let payload = ChangeNoticePayload(server: instanceID, device: token, event: event).text
        try await connection.run("SELECT pg_notify(\(ChangeNoticePayload.channel), \(payload))", logger: logger)
    }

    // MARK: Listening

    /// Listens on `huddle_changes` until cancelled, passing other servers' notices to the subscribers;
    /// after a lost connection, tries again after ``Configuration/reconnectDelay``.
    private func listen() async {
        // At shutdown the pool closes as this loop stops: neither is a lost connection to report.
        var isStopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }
        while !isStopping {
            do {
                // A connection of its own, not one leased from the pool: it is held for as long as the server
                // runs, and a pool that stops waits for the connections it leased.
                let connection = try await PostgresConnection.connect(
                    configuration: try database.connectionConfiguration(), id: Self.listenerConnectionID, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: ChangeNoticePayload.channel) { notifications in
                    logger.debug("listening for other servers' changes on \(ChangeNoticePayload.channel)")
                    subscribers.publish(.resync)
                    // The notifications are read, and the connection checked, by tasks of their own: on a
                    // connection the server dropped, postgres-nio can leave a query or the notifications
                    // waiting for good, and a wait tied to them would stop this listener for good too.
                    let (ended, endListening) = AsyncStream<Void>.makeStream()
                    let reader = Task {
                        do {
                            for try await notification in notifications { self.received(notification.payload) }
                        } catch {}
                        endListening.finish()
                    }
                    let heartbeat = Task { [configuration] in
                        while !Task.isCancelled {
                            try? await Task.sleep(for: configuration.heartbeatInterval)
                            guard await Self.answers(connection, within: configuration.heartbeatTimeout, logger: logger) else { break }
                        }
                        endListening.finish()
                    }
                    defer {
                        reader.cancel()
                        heartbeat.cancel()
                    }
                    // Until the connection is lost (or this task is cancelled, which ends the stream too).
                    for await _ in ended {}
                    if !isStopping { throw StoreError(.unavailable, "the listening connection stopped answering") }
                }
            } catch {
                if isStopping { break }
                logger.warning("lost the connection listening for other servers' changes: \(StoreError.fromPostgres(error))")
            }
            try? await Task.sleep(for: configuration.reconnectDelay)
        }
    }

    /// Whether a connection answers a query within `limit`.
    private static func answers(_ connection: PostgresConnection, within limit: Duration, logger: Logger) async -> Bool {
        await result(of: { (try? await connection.query("SELECT 1", logger: logger)) != nil }, within: limit, otherwise: false)
    }

    /// The listener's connection id, in logs (the pool numbers its own from 0).
    private static let listenerConnectionID = 1_000_000

    private func received(_ payload: String) {
        guard let payload = ChangeNoticePayload(text: payload) else {
            logger.warning("ignoring a notice on \(ChangeNoticePayload.channel) that this build does not understand: \(payload)")
            return
        }
        guard payload.server != instanceID else { return }
        subscribers.publish(payload.notice)
    }

    // MARK: Rows

    /// The device's apps, or only the one of `topic`.
    private func apps(device token: String, topic: String? = nil, _ connection: PostgresConnection) async throws -> [AppRecord] {
        var files: [String: [String: Data]] = [:]
        // `topic` is NULL for every app of the device.
        for row in try await connection.rows(
            """
            SELECT topic, path, data FROM localization_files
            WHERE device_token = \(token) AND (\(topic)::text IS NULL OR topic = \(topic))
            """, logger: logger)
        {
            let (topic, path, data) = try row.decode((String, String, Data).self)
            files[topic, default: [:]][path] = data
        }
        let appRows = try await connection.rows(
            """
            SELECT topic, display_name, development_language, settings, categories, activity_types, capabilities, fcm_token, firebase FROM apps
            WHERE device_token = \(token) AND (\(topic)::text IS NULL OR topic = \(topic)) ORDER BY topic
            """, logger: logger)
        return try appRows.map { row in
            let (topic, displayName, developmentLanguage, settingsText, categoriesText, activityTypesText, capabilitiesText, fcmToken, firebaseText) =
                try row.decode((String, String?, String, String, String, String?, String?, String?, String?).self)
            return try RowCodec.app(
                topic: topic, displayName: displayName, developmentLanguage: developmentLanguage, settingsText: settingsText,
                categoriesText: categoriesText, activityTypesText: activityTypesText, capabilitiesText: capabilitiesText, fcmToken: fcmToken,
                firebaseText: firebaseText, localizationFiles: files[topic] ?? [:])
        }
    }

    private static func device(_ row: PostgresRow) throws -> DeviceRecord {
        let (token, secretHash, name, createdAt, environment, platform, androidVersion) = try row.decode(
            (String, String, String, Int64, String, String, Int?).self)
        return try RowCodec.device(
            token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
            androidVersion: androidVersion)
    }

    /// A device and its last change number, from a row that has `last_change` after the device's columns.
    private static func deviceAndLastChange(_ row: PostgresRow) throws -> (DeviceRecord, Int64) {
        let (token, secretHash, name, createdAt, environment, platform, androidVersion, lastChange) = try row.decode(
            (String, String, String, Int64, String, String, Int?, Int64).self)
        let device = try RowCodec.device(
            token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
            androidVersion: androidVersion)
        return (device, lastChange)
    }

    private static func serviceAccount(_ row: PostgresRow) throws -> ServiceAccountRecord {
        let (keyID, project, clientEmail, publicKey, createdAt) = try row.decode((String, String, String, String, Int64).self)
        return ServiceAccountRecord(
            keyID: keyID, project: project, clientEmail: clientEmail, publicKeyPEM: publicKey, createdAt: Date(milliseconds: createdAt))
    }

    private static func signingKey(_ row: PostgresRow) throws -> SigningKeyRecord {
        let (keyID, teamID, publicKey, topicsText, createdAt, environments) = try row.decode((String, String, String, String, Int64, String?).self)
        return try RowCodec.signingKey(
            keyID: keyID, teamID: teamID, publicKeyPEM: publicKey, topicsText: topicsText, createdAt: createdAt, environmentsText: environments)
    }
}
