import Foundation
public import HuddleCore
import Testing

/// The behaviour every ``NotificationStore`` must have. Each backend's tests call ``check(_:)`` with a
/// new, empty store; failures are recorded as test issues naming the check.
public enum StoreConformance {
    /// The checks, by name, so a backend's test can run them as parameterized cases.
    public static let checks: [String] = Array(all.keys).sorted()

    /// Runs one check against a new store.
    public static func check(_ name: String, store: some NotificationStore) async throws {
        guard let body = all[name] else {
            Issue.record("no conformance check named \(name)")
            return
        }
        try await body(store)
    }

    static let start = Date(timeIntervalSince1970: 1_528_304_400)
    static let token = String(repeating: "ab", count: 32)

    static func device(_ token: String = token) -> DeviceRecord {
        DeviceRecord(token: token, secretHash: "hash", name: "Test iPhone", createdAt: start)
    }

    static func notification(_ id: String, app: String = "com.example.app", sequence: UInt64, thread: String = "") -> DeliveredNotification {
        DeliveredNotification(
            app: app,
            request: NotificationRequest(identifier: id, content: NotificationContent(
                title: .plain("Title \(id)"), body: .localized(key: "BODY", arguments: ["x", "ü"]), badge: 2,
                sound: NotificationSound(name: "ping.caf", critical: true, volume: 0.5), categoryIdentifier: "c",
                threadIdentifier: thread, summaryArgument: "Teja", summaryArgumentCount: 3, targetContentIdentifier: "t",
                interruptionLevel: .timeSensitive, relevanceScore: 0.25, filterCriteria: "work", launchImageName: "L",
                userInfo: JSONObject([("deep", ["link": "app://x", "n": 1])]))),
            stamp: DeliveryStamp(date: start.addingTimeInterval(Double(sequence) + 0.125), sequence: sequence))
    }

    typealias Check = @Sendable (any NotificationStore) async throws -> Void

    static let all: [String: Check] = [
        "devices are created, read and deleted": { store in
            try await store.createDevice(device())
            #expect(try await store.device(token: token) == device())
            #expect(try await store.device(token: String(repeating: "0", count: 64)) == nil)
            #expect(try await store.unregistrationDate(token: token) == nil)
            let before = Date().addingTimeInterval(-1)
            #expect(try await store.deleteDevice(token: token))
            #expect(try await store.device(token: token) == nil)
            #expect(try await !store.deleteDevice(token: token))
            let unregistered = try #require(try await store.unregistrationDate(token: token))
            #expect(unregistered >= before)
            try await store.createDevice(device())
            #expect(try await store.unregistrationDate(token: token) == nil)
        },
        "a device token is unique": { store in
            try await store.createDevice(device())
            await #expect(throws: StoreError.self) { try await store.createDevice(device()) }
        },
        "apps round-trip with settings, categories and localization files": { store in
            try await store.createDevice(device())
            let app = AppRecord(
                topic: "com.example.app", developmentLanguage: "de",
                settings: AppSettings(grouping: .byApp, showPreviews: .never),
                categories: [
                    NotificationCategory(
                        identifier: "c", actions: [NotificationAction(identifier: "reply", title: .plain("Reply"), options: ["foreground"])],
                        intentIdentifiers: ["INSendMessageIntent"], hiddenPreviewsBodyPlaceholder: .localized(key: "P", arguments: []),
                        categorySummaryFormat: .plain("%u more"), options: [.hiddenPreviewsShowTitle, .allowAnnouncement]),
                ],
                localizationFiles: ["de.lproj/Localizable.strings": Data("\"A\" = \"B\";".utf8), "x.xcstrings": Data([0, 1, 2])])
            try await store.saveApp(app, device: token)
            #expect(try await store.apps(device: token) == [app])
            var changed = app
            changed.settings.grouping = .off
            changed.localizationFiles = [:]
            try await store.saveApp(changed, device: token)
            #expect(try await store.apps(device: token) == [changed])
            #expect(try await store.deleteApp(topic: app.topic, device: token))
            #expect(try await store.apps(device: token).isEmpty)
        },
        "an app needs a known device": { store in
            await #expect(throws: StoreError.self) { try await store.saveApp(AppRecord(topic: "a.b"), device: token) }
        },
        "notifications round-trip exactly, oldest first": { store in
            try await store.createDevice(device())
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await store.saveApp(AppRecord(topic: "com.example.other"), device: token)
            let first = notification("a", sequence: 1, thread: "t")
            let second = notification("b", app: "com.example.other", sequence: 2)
            let third = notification("c", sequence: 3)
            for item in [third, first, second] { try await store.insert(item, device: token) }
            #expect(try await store.notifications(device: token) == [first, second, third])
        },
        "the same identifier replaces": { store in
            try await store.createDevice(device())
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await store.insert(notification("a", sequence: 1, thread: "old"), device: token)
            let replacement = notification("a", sequence: 2, thread: "new")
            try await store.insert(replacement, device: token)
            #expect(try await store.notifications(device: token) == [replacement])
        },
        "removals by identifier ignore unknown ones": { store in
            try await store.createDevice(device())
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            for sequence in 1...3 { try await store.insert(notification("n\(sequence)", sequence: UInt64(sequence)), device: token) }
            try await store.deleteNotifications(app: "com.example.app", identifiers: ["n1", "n3", "nope"], device: token)
            #expect(try await store.notifications(device: token).map(\.identifier) == ["n2"])
        },
        "notifications need a known device and app": { store in
            await #expect(throws: StoreError.self) { try await store.insert(notification("a", sequence: 1), device: token) }
            try await store.createDevice(device())
            await #expect(throws: StoreError.self) { try await store.insert(notification("a", sequence: 1), device: token) }
        },
        "deleting an app or device removes its notifications": { store in
            try await store.createDevice(device())
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await store.insert(notification("a", sequence: 1), device: token)
            #expect(try await store.deleteApp(topic: "com.example.app", device: token))
            #expect(try await store.notifications(device: token).isEmpty)
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await store.insert(notification("b", sequence: 2), device: token)
            #expect(try await store.deleteDevice(token: token))
            try await store.createDevice(device())
            #expect(try await store.notifications(device: token).isEmpty)
        },
        "devices are kept apart": { store in
            let other = String(repeating: "cd", count: 32)
            try await store.createDevice(device())
            try await store.createDevice(device(other))
            for token in [token, other] { try await store.saveApp(AppRecord(topic: "com.example.app"), device: token) }
            try await store.insert(notification("a", sequence: 1), device: token)
            #expect(try await store.notifications(device: other).isEmpty)
            try await store.deleteNotifications(app: "com.example.app", identifiers: ["a"], device: other)
            #expect(try await store.notifications(device: token).count == 1)
        },
        "signing keys are saved, replaced and deleted": { store in
            let key = SigningKeyRecord(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKeyPEM: "-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----", topics: ["com.example.app"], createdAt: start)
            try await store.saveSigningKey(key)
            #expect(try await store.signingKey(id: key.keyID) == key)
            var replaced = key
            replaced.topics = []
            try await store.saveSigningKey(replaced)
            #expect(try await store.signingKeys() == [replaced])
            #expect(try await store.deleteSigningKey(id: key.keyID))
            #expect(try await store.signingKey(id: key.keyID) == nil)
        },
        "concurrent inserts are all kept": { store in
            try await store.createDevice(device())
            try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sequence in 1...200 {
                    group.addTask { try await store.insert(notification("n\(sequence)", sequence: UInt64(sequence)), device: token) }
                }
                try await group.waitForAll()
            }
            #expect(try await store.notifications(device: token).map(\.stamp.sequence) == Array(1...200))
        },
    ]
}
