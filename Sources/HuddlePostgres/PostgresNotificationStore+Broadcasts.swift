public import Foundation
public import HuddleCore
import Logging
import PostgresNIO

extension PostgresNotificationStore {
    /// The first key of the two-key advisory locks that channel creations take per app and environment.
    static let channelLockClass: Int32 = 0x4875_6402

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

    func activities(device token: String, _ connection: PostgresConnection) async throws -> [LiveActivity] {
        let text = try await connection.firstRow("SELECT activities FROM devices WHERE token = \(token)", logger: logger)?.decode(String?.self)
        return try LiveActivity.stored(text ?? nil, device: token)
    }

    /// Stores a device's activities in place of `stored`, and the channels they listen on beside them (migration 011),
    /// rewritten only when those changed: most writes are an activity's new content, on the channels it had.
    func saveActivities(
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
}
