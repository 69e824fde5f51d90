public import Foundation
import GRDB
public import HuddleCore

extension SQLiteNotificationStore {
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

    static func activities(device token: String, _ db: Database) throws -> [LiveActivity] {
        try LiveActivity.stored(String.fetchOne(db, sql: "SELECT activities FROM devices WHERE token = ?", arguments: [token]), device: token)
    }

    /// Stores a device's activities in place of `stored`, and the channels they listen on beside them (migration 011),
    /// rewritten only when those changed: most writes are an activity's new content, on the channels it had.
    static func saveActivities(_ activities: [LiveActivity], replacing stored: [LiveActivity], device token: String, _ db: Database) throws {
        try db.execute(
            sql: "UPDATE devices SET activities = ? WHERE token = ?",
            arguments: [activities.isEmpty ? nil : LiveActivity.storedText(activities), token])
        let channels = LiveActivity.channels(of: activities)
        guard channels != LiveActivity.channels(of: stored) else { return }
        try db.cachedStatement(sql: "DELETE FROM activity_channels WHERE device_token = ?").execute(arguments: [token])
        let add = try db.cachedStatement(sql: "INSERT OR IGNORE INTO activity_channels (channel_id, app, device_token) VALUES (?, ?, ?)")
        for listening in channels { try add.execute(arguments: [listening.channel, listening.app, token]) }
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
}
