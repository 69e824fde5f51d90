import Foundation
import HuddleCore
import Testing

/// What every store does for FCM (issue 42): Android devices, apps' registration tokens and channels, service
/// accounts, and topic subscriptions counted in the transaction that adds them.
extension StoreConformance {
    static let androidApp = "com.example.android"

    static func androidDevice(_ token: String = token) -> DeviceRecord {
        DeviceRecord(token: token, secretHash: "hash", name: "Pixel", createdAt: start, kind: .android(version: 14))
    }

    /// An installed app's registration token, as the store gave it.
    static func registrationToken(_ store: any NotificationStore, app: String = androidApp, device: String = token) async throws -> String {
        let apps = try await store.apps(device: device)
        return try #require(apps.first { $0.topic == app }?.firebase.registrationToken)
    }

    static let firebaseChecks: [String: Check] = [
        "an Android device keeps its platform, and an app its registration token, project and channels": { store in
            try await store.createDevice(androidDevice())
            #expect(try await store.device(token: token)?.kind == .android(version: 14))
            let channels = [AndroidChannel(id: "chats", name: "Chats", importance: .high), AndroidChannel(id: "news", name: "News", importance: .low)]
            _ = try await store.saveApp(
                AppRecord(topic: androidApp, firebase: FirebaseInstallation(project: "demo", channels: channels, defaultChannelID: "news")), device: token)
            let saved = try await registrationToken(store)
            #expect(saved.count == 163 && saved.contains(":APA91b"))
            // Saved again, it keeps its token whatever the update says.
            _ = try await store.updateApp(topic: androidApp, device: token, maximumApps: 10) { app in
                var app = try #require(app)
                app.firebase.registrationToken = "forged"
                return app
            }
            #expect(try await registrationToken(store) == saved)
            let recipient = try #require(try await store.firebaseRecipient(registrationToken: saved))
            #expect(recipient.device.token == token && recipient.device.kind == .android(version: 14) && recipient.app == androidApp)
            #expect(recipient.installation == FirebaseInstallation(registrationToken: saved, project: "demo", channels: channels, defaultChannelID: "news"))
            #expect(try await store.snapshot(device: token)?.apps.first?.firebase.channels == channels)
            #expect(try await store.firebaseRecipient(registrationToken: "unknown") == nil)
            // Found by its installation ID too (the token's part before the colon); an ID that only begins another's is not.
            let installationID = String(try #require(FirebaseInstallation.installationID(of: saved)))
            #expect(installationID.count == 22)
            #expect(try await store.registrationToken(installationID: installationID) == saved)
            #expect(try await store.registrationToken(installationID: String(installationID.dropLast())) == nil)
            #expect(try await store.registrationToken(installationID: "not-a-fid") == nil)
            #expect(try await store.registrationToken(installationID: "%") == nil)
            // An iPhone's app gets a token too, and two apps never share one.
            try await store.createDevice(device(String(repeating: "cd", count: 32)))
            _ = try await store.saveApp(AppRecord(topic: androidApp), device: String(repeating: "cd", count: 32))
            #expect(try await registrationToken(store, device: String(repeating: "cd", count: 32)) != saved)
            // An app removed takes its installation ID with it.
            _ = try await store.deleteApp(topic: androidApp, device: token)
            #expect(try await store.registrationToken(installationID: installationID) == nil)
        },
        "service accounts are saved, read, listed and deleted": { store in
            let account = ServiceAccountRecord(keyID: "k1", project: "demo", clientEmail: "a@demo.iam", publicKeyPEM: "PEM", createdAt: start)
            try await store.saveServiceAccount(account)
            try await store.saveServiceAccount(ServiceAccountRecord(keyID: "k0", project: "other", clientEmail: "b@other", publicKeyPEM: "P", createdAt: start))
            #expect(try await store.serviceAccount(keyID: "k1") == account)
            #expect(try await store.serviceAccounts().map(\.keyID) == ["k0", "k1"])
            var replaced = account
            replaced.project = "renamed"
            try await store.saveServiceAccount(replaced)
            #expect(try await store.serviceAccount(keyID: "k1")?.project == "renamed")
            #expect(try await store.deleteServiceAccount(keyID: "k1"))
            #expect(try await !store.deleteServiceAccount(keyID: "k1"))
            #expect(try await store.serviceAccount(keyID: "k1") == nil)
        },
        "topic subscriptions are per project, listed by topic, and go with their app": { store in
            try await store.createDevice(androidDevice())
            _ = try await store.saveApp(AppRecord(topic: androidApp), device: token)
            _ = try await store.saveApp(AppRecord(topic: "com.example.second"), device: token)
            let first = try await registrationToken(store)
            let second = try await registrationToken(store, app: "com.example.second")
            #expect(try await store.subscribe(registrationToken: first, project: "p", topic: "news", at: start, maximumTopics: 10))
            #expect(try await !store.subscribe(registrationToken: first, project: "p", topic: "news", at: start, maximumTopics: 10))
            #expect(try await store.subscribe(registrationToken: first, project: "p", topic: "sports", at: start, maximumTopics: 10))
            #expect(try await store.subscribe(registrationToken: second, project: "p", topic: "news", at: start, maximumTopics: 10))
            #expect(try await store.subscribe(registrationToken: second, project: "q", topic: "sports", at: start, maximumTopics: 10))
            await #expect(throws: StoreError.self) {
                try await store.subscribe(registrationToken: "unknown", project: "p", topic: "news", at: start, maximumTopics: 10)
            }
            // An app registered with a project is subscribed under that project only.
            _ = try await store.saveApp(AppRecord(topic: "com.example.bound", firebase: FirebaseInstallation(project: "p")), device: token)
            let bound = try await registrationToken(store, app: "com.example.bound")
            do {
                _ = try await store.subscribe(registrationToken: bound, project: "q", topic: "news", at: start, maximumTopics: 10)
                Issue.record("an app of project p was subscribed under q")
            } catch let error as StoreError {
                #expect(error.code == .conflict)
            }
            #expect(try await store.subscribe(registrationToken: bound, project: "p", topic: "bound", at: start, maximumTopics: 10))
            let subscribed = try await store.subscribers(project: "p", toAnyOf: ["news", "sports"])
            let expected: [String: Set<String>] = [first: ["news", "sports"], second: ["news"]]
            #expect(Dictionary(uniqueKeysWithValues: subscribed.map { ($0.registrationToken, $0.topics) }) == expected)
            #expect(subscribed.map(\.registrationToken) == subscribed.map(\.registrationToken).sorted())
            #expect(try await store.subscribers(project: "q", toAnyOf: ["news"]).isEmpty)
            #expect(try await store.unsubscribe(registrationToken: first, project: "p", topic: "sports"))
            #expect(try await !store.unsubscribe(registrationToken: first, project: "p", topic: "sports"))
            _ = try await store.deleteApp(topic: androidApp, device: token)
            #expect(try await store.subscribers(project: "p", toAnyOf: ["news", "sports"]).map(\.registrationToken) == [second])
            _ = try await store.deleteDevice(token: token, at: start)
            #expect(try await store.subscribers(project: "q", toAnyOf: ["sports"]).isEmpty)
        },
        "racing subscriptions of one token never pass its limit of topics": { store in
            try await store.createDevice(androidDevice())
            _ = try await store.saveApp(AppRecord(topic: androidApp), device: token)
            let registration = try await registrationToken(store)
            let subscribed = try await succeeded(20, refusedWith: .full, naming: "topics") { index in
                _ = try await store.subscribe(registrationToken: registration, project: "p", topic: "t\(index)", at: start, maximumTopics: 7)
            }
            #expect(subscribed == 7)
            let topics = (0..<20).map { "t\($0)" }
            #expect(try await store.subscribers(project: "p", toAnyOf: topics).first?.topics.count == 7)
        },
    ]
}
