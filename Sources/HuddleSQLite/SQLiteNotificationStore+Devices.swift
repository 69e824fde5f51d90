public import Foundation
import GRDB
public import HuddleCore

extension SQLiteNotificationStore {
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

    public func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange {
        try await UpdateRefusal.unwrapping {
            try await write { db in try self.updateApp(topic: topic, device: token, maximumApps: maximumApps, update, db) }
        }
    }

    /// Reads the app, changes it and writes it back in one write transaction, which SQLite runs one at a
    /// time: a change that commits first is what the next one reads.
    func updateApp(
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
                    firebase, web_push_id, web_push)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (device_token, topic) DO UPDATE SET
                    display_name = excluded.display_name, development_language = excluded.development_language,
                    settings = excluded.settings, categories = excluded.categories, activity_types = excluded.activity_types,
                    capabilities = excluded.capabilities, fcm_token = excluded.fcm_token, firebase = excluded.firebase,
                    web_push_id = excluded.web_push_id, web_push = excluded.web_push
                """,
            arguments: [
                token, topic, app.displayName, app.developmentLanguage, RowCodec.settingsText(app), RowCodec.categoriesText(app),
                RowCodec.activityTypesText(app), app.capabilities.storedText, app.firebase.registrationToken, app.firebase.storedText,
                app.webPush?.id, app.webPush?.storedText,
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
    static func releaseHeld(device token: String, settings: DeviceSettings, _ db: Database) throws {
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
    static func releaseHeld(app topic: String, device token: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE notifications SET held = NULL WHERE app_id = (SELECT id FROM apps WHERE device_token = ? AND topic = ?) AND held = 1",
            arguments: [token, topic])
    }

    static func settings(device token: String, _ db: Database) throws -> DeviceSettings {
        try DeviceSettings.stored(String.fetchOne(db, sql: "SELECT settings FROM devices WHERE token = ?", arguments: [token]), device: token)
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

    public func webPushRecipient(subscriptionID: String) async throws -> WebPushRecipient? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT device_token, topic, web_push FROM apps WHERE web_push_id = ?", arguments: [subscriptionID]),
                let device = try Row.fetchOne(db, sql: "SELECT * FROM devices WHERE token = ?", arguments: [row["device_token"] as String])
                    .map(Self.device)
            else { return nil }
            let topic: String = row["topic"]
            guard let subscription = try WebPushSubscription.stored(id: subscriptionID, row["web_push"], app: topic) else { return nil }
            return WebPushRecipient(device: device, app: topic, subscription: subscription)
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

    static func device(_ row: Row) throws -> DeviceRecord {
        try RowCodec.device(
            token: row["token"], secretHash: row["secret_hash"], name: row["name"], createdAt: row["created_at"], environment: row["environment"],
            platform: row["platform"], androidVersion: row["android_version"])
    }

    /// The device's apps, or only the one of `topic`.
    static func apps(device token: String, topic: String? = nil, _ db: Database) throws -> [AppRecord] {
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
                webPushID: row["web_push_id"], webPushText: row["web_push"], localizationFiles: files[topic] ?? [:])
        }
    }

    static func requireDevice(_ token: String, _ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM devices WHERE token = ?", arguments: [token]) == true else {
            throw StoreError(.notFound, "unknown device \(token)")
        }
    }
}
