public import Foundation
public import HuddleCore
import Logging
import PostgresNIO

extension PostgresNotificationStore {
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

    /// The advisory lock registrations take, so that they count devices one at a time (any fixed number).
    static let registrationLock: Int64 = 0x4875_6464_6C65_0001

    public func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange {
        try await UpdateRefusal.unwrapping {
            try await client.write(logger: logger) { connection in
                .commit(try await self.updateApp(topic: topic, device: token, maximumApps: maximumApps, update, connection))
            }
        }
    }

    /// Takes the device's next number first: that locks the device's row until the transaction ends, so
    /// changes of one device take turns, and each reads the app as the one before it left it.
    func updateApp(
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
        let webPush = app.webPush?.storedText
        try await connection.run(
            """
            INSERT INTO apps (
                device_token, topic, display_name, development_language, settings, categories, activity_types, capabilities, fcm_token, firebase,
                web_push_id, web_push)
            VALUES (
                \(token), \(topic), \(app.displayName), \(app.developmentLanguage), \(settings), \(categories), \(activityTypes),
                \(capabilities), \(app.firebase.registrationToken), \(firebase), \(app.webPush?.id), \(webPush))
            ON CONFLICT (device_token, topic) DO UPDATE SET
                display_name = excluded.display_name, development_language = excluded.development_language,
                settings = excluded.settings, categories = excluded.categories, activity_types = excluded.activity_types,
                capabilities = excluded.capabilities, fcm_token = excluded.fcm_token, firebase = excluded.firebase,
                web_push_id = excluded.web_push_id, web_push = excluded.web_push
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
    func releaseHeld(device token: String, settings: DeviceSettings, _ connection: PostgresConnection) async throws {
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
    func releaseHeld(app topic: String, device token: String, _ connection: PostgresConnection) async throws {
        try await connection.run(
            """
            UPDATE notifications SET held = NULL
            WHERE app_id = (SELECT id FROM apps WHERE device_token = \(token) AND topic = \(topic)) AND held = 1
            """, logger: logger)
    }

    func settings(device token: String, _ connection: PostgresConnection) async throws -> DeviceSettings {
        let text = try await connection.firstRow("SELECT settings FROM devices WHERE token = \(token)", logger: logger)?.decode(String?.self)
        return try DeviceSettings.stored(text ?? nil, device: token)
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

    public func webPushRecipient(subscriptionID: String) async throws -> WebPushRecipient? {
        try await client.read(logger: logger) { connection in
            guard
                let row = try await connection.firstRow(
                    """
                    SELECT devices.token, devices.secret_hash, devices.name, devices.created_at, devices.environment, devices.platform,
                        devices.android_version, apps.topic, apps.web_push
                    FROM apps JOIN devices ON devices.token = apps.device_token WHERE apps.web_push_id = \(subscriptionID)
                    """, logger: logger)
            else { return nil }
            let (token, secretHash, name, createdAt, environment, platform, androidVersion, topic, webPushText) = try row.decode(
                (String, String, String, Int64, String, String, Int?, String, String?).self)
            let device = try RowCodec.device(
                token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
                androidVersion: androidVersion)
            guard let subscription = try WebPushSubscription.stored(id: subscriptionID, webPushText, app: topic) else { return nil }
            return WebPushRecipient(device: device, app: topic, subscription: subscription)
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

    /// The device's apps, or only the one of `topic`.
    func apps(device token: String, topic: String? = nil, _ connection: PostgresConnection) async throws -> [AppRecord] {
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
            SELECT topic, display_name, development_language, settings, categories, activity_types, capabilities, fcm_token, firebase,
                web_push_id, web_push
            FROM apps WHERE device_token = \(token) AND (\(topic)::text IS NULL OR topic = \(topic)) ORDER BY topic
            """, logger: logger)
        return try appRows.map { row in
            let (
                topic, displayName, developmentLanguage, settingsText, categoriesText, activityTypesText, capabilitiesText, fcmToken, firebaseText,
                webPushID, webPushText
            ) = try row.decode((String, String?, String, String, String, String?, String?, String?, String?, String?, String?).self)
            return try RowCodec.app(
                topic: topic, displayName: displayName, developmentLanguage: developmentLanguage, settingsText: settingsText,
                categoriesText: categoriesText, activityTypesText: activityTypesText, capabilitiesText: capabilitiesText, fcmToken: fcmToken,
                firebaseText: firebaseText, webPushID: webPushID, webPushText: webPushText, localizationFiles: files[topic] ?? [:])
        }
    }

    static func device(_ row: PostgresRow) throws -> DeviceRecord {
        let (token, secretHash, name, createdAt, environment, platform, androidVersion) = try row.decode(
            (String, String, String, Int64, String, String, Int?).self)
        return try RowCodec.device(
            token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
            androidVersion: androidVersion)
    }

    /// A device and its last change number, from a row that has `last_change` after the device's columns.
    static func deviceAndLastChange(_ row: PostgresRow) throws -> (DeviceRecord, Int64) {
        let (token, secretHash, name, createdAt, environment, platform, androidVersion, lastChange) = try row.decode(
            (String, String, String, Int64, String, String, Int?, Int64).self)
        let device = try RowCodec.device(
            token: token, secretHash: secretHash, name: name, createdAt: createdAt, environment: environment, platform: platform,
            androidVersion: androidVersion)
        return (device, lastChange)
    }
}
