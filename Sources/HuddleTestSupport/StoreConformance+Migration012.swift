import Foundation
public import HuddleCore
import Testing

/// Migration 012 (integer ids for devices, apps, notifications and changes) on a database written before it: the same
/// rows go into either store's schema as migration 011 left it, and the same store calls must find them afterwards.
extension StoreConformance {
    /// Statements that write, into a schema at migration 011, two devices with apps (one with a localization file, a
    /// registration token and a topic subscription), notifications (one held) and their journal. Identical for both
    /// stores but for the byte string literal, which `bytes` spells from hexadecimal digits.
    public static func rowsWrittenBefore012(bytes: (String) -> String) -> [String] {
        let contents = ["A", "B", "C", "D"].map { title in
            RowCodec.contentText(NotificationContent(title: .plain(title))).replacingOccurrences(of: "'", with: "''")
        }
        let (phone, other) = (token, String(repeating: "cd", count: 32))
        return [
            "INSERT INTO devices (token, secret_hash, name, created_at, last_change) VALUES ('\(phone)', 'x', 'Phone', 1, 4)",
            "INSERT INTO devices (token, secret_hash, name, created_at, last_change) VALUES ('\(other)', 'y', 'Other', 2, 1)",
            """
            INSERT INTO apps (device_token, topic, development_language, settings, categories, notification_count, fcm_token) VALUES
                ('\(phone)', 'com.example.app', 'en', '{}', '[]', 2, 'fcm-token'), ('\(phone)', 'com.example.other', 'en', '{}', '[]', 1, NULL),
                ('\(other)', 'com.example.app', 'en', '{}', '[]', 1, NULL)
            """,
            // "a"="b";
            "INSERT INTO localization_files VALUES ('\(phone)', 'com.example.app', 'en.lproj/Localizable.strings', \(bytes("2261223D2262223B")))",
            "INSERT INTO topic_subscriptions VALUES ('fcm-token', 'project', 'news', 0)",
            """
            INSERT INTO notifications (device_token, topic, identifier, sequence, delivered_at, content, held) VALUES
                ('\(phone)', 'com.example.app', 'a', 1, 1000, '\(contents[0])', NULL),
                ('\(phone)', 'com.example.other', 'c', 2, 2000, '\(contents[2])', NULL),
                ('\(phone)', 'com.example.app', 'b', 3, 3000, '\(contents[1])', 1),
                ('\(other)', 'com.example.app', 'd', 1, 1500, '\(contents[3])', NULL)
            """,
            """
            INSERT INTO changes (device_token, number, kind, topic, identifiers) VALUES
                ('\(phone)', 1, 'delivered', 'com.example.app', '["a"]'), ('\(phone)', 2, 'delivered', 'com.example.other', '["c"]'),
                ('\(phone)', 3, 'delivered', 'com.example.app', '["b"]'), ('\(phone)', 4, 'removed', 'com.example.app', '["z"]'),
                ('\(other)', 1, 'delivered', 'com.example.app', '["d"]')
            """,
        ]
    }

    /// What a store opened on the rows of ``rowsWrittenBefore012(bytes:)``, migrated, must find: every notification in
    /// its order with its number, mark and content; the apps with their file and subscription; the journal with each
    /// delivery's notification. Then the store goes on: numbers continue, the app's limit trims its oldest, and a deleted
    /// device takes its rows with it, which `rows` (the identifiers of every notification, and "change <device id>
    /// <number>" for every change) shows. `journalsDeliveries`: whether the store writes a journal row for a delivery
    /// (SQLite no longer does; its notification is the record).
    public static func checkRowsKeptBy012(
        store: some NotificationStore, journalsDeliveries: Bool, rows: () async throws -> [String]
    ) async throws {
        let other = String(repeating: "cd", count: 32)
        let snapshot = try #require(try await store.snapshot(device: token))
        #expect(snapshot.lastChange == 4)
        #expect(snapshot.notifications.map { "\($0.app) \($0.identifier) \($0.stamp.sequence)" } == [
            "com.example.app a 1", "com.example.other c 2", "com.example.app b 3",
        ])
        #expect(snapshot.notifications.map(\.mark) == [.shown, .shown, .held])
        #expect(snapshot.notifications.map(\.request.content.title) == [.plain("A"), .plain("C"), .plain("B")])
        #expect(snapshot.apps.map(\.topic) == ["com.example.app", "com.example.other"])
        #expect(snapshot.apps.first?.localizationFiles["en.lproj/Localizable.strings"] == Data("\"a\"=\"b\";".utf8))
        #expect(try await store.firebaseRecipient(registrationToken: "fcm-token")?.device.token == token)
        #expect(try await store.subscribers(project: "project", toAnyOf: ["news"]).map(\.registrationToken) == ["fcm-token"])
        let journal = try #require(try await store.changes(device: token, after: 0))
        #expect(journal.map(\.number) == [1, 2, 3, 4])
        let delivered = journal.compactMap { change -> String? in
            if case .delivered(let notification) = change.kind { "\(notification.identifier) \(notification.stamp.sequence)" } else { nil }
        }
        #expect(delivered == ["a 1", "c 2", "b 3"])
        #expect(try await store.snapshot(device: other)?.notifications.map(\.identifier) == ["d"])

        let next = try await store.deliver(
            NotificationRequest(identifier: "e", content: NotificationContent(title: .plain("E"))), app: "com.example.app", at: Date(), device: token)
        #expect(next.number == 5)
        let trim = try #require(try await store.trimNotifications(app: "com.example.app", device: token, limit: 2))
        #expect(trim.kind == .removed(app: "com.example.app", identifiers: ["a"]))
        #expect(try await store.deleteDevice(token: other, at: start))
        let phoneID = try #require(try await rows().first { $0.hasPrefix("change ") }?.split(separator: " ")[1])
        let journaled = journalsDeliveries ? Array(1...6) : [1, 2, 3, 4, 6]
        #expect(try await rows().sorted() == (["b", "c", "e"] + journaled.map { "change \(phoneID) \($0)" }).sorted())
        #expect(try await store.changes(device: token, after: 3)?.map(\.number) == [4, 5, 6])
    }
}
