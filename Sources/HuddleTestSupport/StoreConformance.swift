public import Foundation
public import HuddleCore
import Testing

/// The behaviour every ``NotificationStore`` must have. Each backend's tests call ``check(_:)`` with a
/// new, empty store; failures are recorded as test issues naming the check.
public enum StoreConformance {
    /// The checks, by name, so a backend's test can run them as parameterized cases.
    public static let checks: [String] = Array(everyCheck.keys).sorted()

    static let everyCheck = all.merging(attentionChecks) { first, _ in first }.merging(firebaseChecks) { first, _ in first }
        .merging(webPushChecks) { first, _ in first }.merging(receiptChecks) { first, _ in first }

    /// Runs one check against a new store.
    public static func check(_ name: String, store: some NotificationStore) async throws {
        guard let body = everyCheck[name] else {
            Issue.record("no conformance check named \(name)")
            return
        }
        try await body(store)
    }

    public static let start = Date(timeIntervalSince1970: 1_528_304_400)
    /// The device every check uses.
    public static let token = String(repeating: "ab", count: 32)
    /// A device's activities on two channels of two apps (two on one of them), one on no channel, and one whose
    /// identifier is longer than any channel's.
    public static let activitiesOnChannels = [("a", "com.example.app", "Ag=="), ("b", "com.example.app", "Ag=="), ("c", "com.example.other", "AQ=="),
        ("d", "com.example.app", nil), ("e", "com.example.app", String(repeating: "A", count: 3000))].map { id, app, channel in
        LiveActivity(
            id: id, app: app, typeName: "T", attributes: [:], contentState: [:], timestamp: start, startedAt: start, channelID: channel)
    }

    static func device(_ token: String = token) -> DeviceRecord {
        DeviceRecord(token: token, secretHash: "hash", name: "Test iPhone", createdAt: start)
    }

    static func request(_ id: String, thread: String = "") -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(
            title: .plain("Title \(id)"), body: .localized(key: "BODY", arguments: ["x", "ü"]), badge: 2,
            sound: NotificationSound(name: "ping.caf", critical: true, volume: 0.5), categoryIdentifier: "c",
            threadIdentifier: thread, summaryArgument: "Teja", summaryArgumentCount: 3, targetContentIdentifier: "t",
            interruptionLevel: .timeSensitive, relevanceScore: 0.25, filterCriteria: "work", launchImageName: "L",
            userInfo: JSONObject([("deep", ["link": "app://x", "n": 1])])))
    }

    /// Delivers a request at `start + seconds` (and a quarter, so that milliseconds must survive).
    @discardableResult
    static func deliver(
        _ id: String, app: String = "com.example.app", at seconds: Double, thread: String = "", to store: any NotificationStore,
        device token: String = token
    ) async throws -> DeliveredNotification {
        let change = try await store.deliver(request(id, thread: thread), app: app, at: start.addingTimeInterval(seconds + 0.25), device: token)
        guard case .delivered(let notification) = change.kind else {
            Issue.record("a delivery was recorded as \(change.kind)")
            throw StoreError(.corrupt, "not a delivery")
        }
        #expect(notification.stamp.sequence == change.number)
        return notification
    }

    static func notifications(_ store: any NotificationStore, device token: String = token) async throws -> [DeliveredNotification] {
        try await store.snapshot(device: token)?.notifications ?? []
    }

    typealias Check = @Sendable (any NotificationStore) async throws -> Void

    /// Runs `attempt` `count` times at once: how many went through. Each refusal must be `code` and name
    /// the `option` that sets the limit.
    static func succeeded(
        _ count: Int, refusedWith code: StoreError.Code, naming option: String, _ attempt: @escaping @Sendable (Int) async throws -> Void
    ) async throws -> Int {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask {
                    do {
                        try await attempt(index)
                        return true
                    } catch let error as StoreError where error.code == code {
                        #expect(error.message.contains(option))
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    static let all: [String: Check] = [
        "devices are created, read and deleted": { store in
            try await store.createDevice(device())
            #expect(try await store.device(token: token) == device())
            #expect(try await store.device(token: String(repeating: "0", count: 64)) == nil)
            #expect(try await store.unregistrationDate(token: token) == nil)
            #expect(try await store.deleteDevice(token: token, at: start))
            #expect(try await store.device(token: token) == nil)
            #expect(try await !store.deleteDevice(token: token, at: start.addingTimeInterval(60)))
            // When it was deleted is the date the server gave, its clock's, not the store's own.
            #expect(try await store.unregistrationDate(token: token) == start)
            try await store.createDevice(device())
            #expect(try await store.unregistrationDate(token: token) == nil)
        },
        "devices are counted": { store in
            #expect(try await store.deviceCount() == 0)
            try await store.createDevice(device())
            try await store.createDevice(device(String(repeating: "cd", count: 32)))
            #expect(try await store.deviceCount() == 2)
            _ = try await store.deleteDevice(token: token, at: start)
            #expect(try await store.deviceCount() == 1)
        },
        "devices are listed newest first, as many as asked": { store in
            #expect(try await store.devices(newestFirst: 10).isEmpty)
            for (index, token) in ["cd", "ef", "01"].enumerated() {
                var record = device(String(repeating: token, count: 32))
                record.createdAt = start.addingTimeInterval(Double(index))
                try await store.createDevice(record)
            }
            #expect(try await store.devices(newestFirst: 10).map { String($0.token.prefix(2)) } == ["01", "ef", "cd"])
            #expect(try await store.devices(newestFirst: 2).map { String($0.token.prefix(2)) } == ["01", "ef"])
            #expect(try await store.devices(newestFirst: 1).first?.name == "Test iPhone")
        },
        "a device token is unique": { store in
            try await store.createDevice(device())
            await #expect(throws: StoreError.self) { try await store.createDevice(device()) }
        },
        "apps round-trip with settings, categories and localization files": { store in
            try await store.createDevice(device())
            let app = AppRecord(
                topic: "com.example.app", displayName: "Example", developmentLanguage: "de",
                settings: AppSettings(grouping: .byApp, showPreviews: .never),
                categories: [
                    NotificationCategory(
                        identifier: "c", actions: [NotificationAction(identifier: "reply", title: .plain("Reply"), options: ["foreground"])],
                        intentIdentifiers: ["INSendMessageIntent"], hiddenPreviewsBodyPlaceholder: .localized(key: "P", arguments: []),
                        categorySummaryFormat: .plain("%u more"), options: [.hiddenPreviewsShowTitle, .allowAnnouncement]),
                ],
                localizationFiles: ["de.lproj/Localizable.strings": Data("\"A\" = \"B\";".utf8), "x.xcstrings": Data([0, 1, 2])])
            #expect(try await store.saveApp(app, device: token).tokenless == DeviceChange(number: 1, kind: .appSaved(app)))
            #expect(try await store.apps(device: token).map(\.tokenless) == [app])
            var changed = app
            changed.settings.grouping = .off
            changed.displayName = nil
            changed.localizationFiles = [:]
            _ = try await store.saveApp(changed, device: token)
            #expect(try await store.apps(device: token).map(\.tokenless) == [changed])
            #expect(try await store.deleteApp(topic: app.topic, device: token) == DeviceChange(number: 3, kind: .appDeleted(topic: app.topic)))
            #expect(try await store.deleteApp(topic: app.topic, device: token) == nil)
            #expect(try await store.apps(device: token).isEmpty)
        },
        "changes of one app at once all stay": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            // Twenty files uploaded at once, and the settings and categories changed meanwhile: each change
            // is decided against the app as the one before it left it, so none is lost.
            let languages = (0..<20).map { "l\($0)" }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for language in languages {
                    group.addTask {
                        _ = try await store.updateApp(topic: "com.example.app", device: token, maximumApps: 100) { current in
                            var app = try #require(current)
                            app.localizationFiles["\(language).lproj/Localizable.strings"] = Data(language.utf8)
                            return app
                        }
                    }
                }
                group.addTask {
                    _ = try await store.updateApp(topic: "com.example.app", device: token, maximumApps: 100) { current in
                        var app = try #require(current)
                        app.settings.grouping = .off
                        return app
                    }
                }
                group.addTask {
                    _ = try await store.updateApp(topic: "com.example.app", device: token, maximumApps: 100) { current in
                        var app = try #require(current)
                        app.categories = [NotificationCategory(identifier: "msg")]
                        return app
                    }
                }
                try await group.waitForAll()
            }
            let app = try #require(try await store.apps(device: token).first)
            #expect(Set(app.localizationFiles.keys) == Set(languages.map { "\($0).lproj/Localizable.strings" }))
            #expect(app.localizationFiles.allSatisfy { path, data in path.hasPrefix(String(decoding: data, as: UTF8.self) + ".lproj") })
            #expect(app.settings.grouping == .off)
            #expect(app.categories.map(\.identifier) == ["msg"])
            #expect(try await store.snapshot(device: token)?.lastChange == 23)
        },
        "racing installs cannot pass the limit of apps": { store in
            try await store.createDevice(device())
            let installed = try await succeeded(12, refusedWith: .conflict, naming: "--max-apps-per-device") { index in
                _ = try await store.updateApp(topic: "com.example.app\(index)", device: token, maximumApps: 5) { current in
                    current ?? AppRecord(topic: "com.example.app\(index)")
                }
            }
            #expect(installed == 5)
            let apps = try await store.apps(device: token)
            #expect(apps.count == 5)
            // A change of an installed app is no install.
            let first = try #require(apps.first)
            _ = try await store.updateApp(topic: first.topic, device: token, maximumApps: 5) { _ in first }
            #expect(try await store.apps(device: token).count == 5)
        },
        "an update that throws stores nothing, and its error comes out": { store in
            try await store.createDevice(device())
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await store.updateApp(topic: "com.example.app", device: token, maximumApps: 5) { _ in throw Refused() }
            }
            #expect(try await store.apps(device: token).isEmpty)
            #expect(try await store.snapshot(device: token)?.lastChange == 0)
        },
        "a removal with a precondition removes only an app that meets it": { store in
            try await store.createDevice(device())
            let app = AppRecord(topic: "com.example.app", displayName: "Chat")
            _ = try await store.saveApp(app, device: token)
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await store.deleteApp(topic: app.topic, device: token) { stored in
                    #expect(stored.tokenless == app)
                    throw Refused()
                }
            }
            #expect(try await store.apps(device: token).map(\.tokenless) == [app])
            #expect(try await store.deleteApp(topic: "com.example.none", device: token) { _ in throw Refused() } == nil)
            #expect(try await store.deleteApp(topic: app.topic, device: token) { _ in } != nil)
            #expect(try await store.apps(device: token).isEmpty)
        },
        "racing registrations cannot pass the limit of devices": { store in
            let registered = try await succeeded(12, refusedWith: .full, naming: "--max-devices") { index in
                try await store.createDevice(device(String(format: "%064x", index + 1)), maximumDevices: 5)
            }
            #expect(registered == 5)
            #expect(try await store.deviceCount() == 5)
        },
        "an app needs a known device": { store in
            await #expect(throws: StoreError.self) { try await store.saveApp(AppRecord(topic: "a.b"), device: token) }
        },
        "notifications round-trip exactly, oldest first": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            _ = try await store.saveApp(AppRecord(topic: "com.example.other"), device: token)
            let first = try await deliver("a", at: 1, thread: "t", to: store)
            let second = try await deliver("b", app: "com.example.other", at: 2, to: store)
            // An earlier date than the one before: the store keeps dates as given and orders by change.
            let third = try await deliver("c", at: 0, to: store)
            #expect(try await notifications(store) == [first, second, third])
            #expect(try await notifications(store).map(\.stamp.sequence) == [3, 4, 5])
        },
        "the same identifier replaces": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await deliver("a", at: 1, thread: "old", to: store)
            let replacement = try await deliver("a", at: 2, thread: "new", to: store)
            #expect(try await notifications(store) == [replacement])
        },
        "removals by identifier ignore unknown ones": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            for index in 1...3 { try await deliver("n\(index)", at: Double(index), to: store) }
            let change = try await store.deleteNotifications(app: "com.example.app", identifiers: ["n1", "n3", "nope"], device: token)
            #expect(change == DeviceChange(number: 5, kind: .removed(app: "com.example.app", identifiers: ["n1", "n3"])))
            #expect(try await notifications(store).map(\.identifier) == ["n2"])
            #expect(try await store.deleteNotifications(app: "com.example.app", identifiers: ["n1", "nope"], device: token) == nil)
        },
        "a removal bounded by a change number keeps what was delivered again since": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            for index in 1...3 { try await deliver("n\(index)", at: Double(index), to: store) }
            // Changes 2-4 delivered n1-n3; n1 comes again as change 5, after a removal through 4 was decided.
            try await deliver("n1", at: 4, to: store)
            let change = try await store.deleteNotifications(
                app: "com.example.app", identifiers: ["n1", "n2"], deliveredThrough: 4, device: token)
            #expect(change == DeviceChange(number: 6, kind: .removed(app: "com.example.app", identifiers: ["n2"])))
            #expect(try await notifications(store).map(\.identifier) == ["n3", "n1"])
            // The same in a batch.
            let results = try await store.commit([
                .remove(app: "com.example.app", identifiers: ["n1", "n3"], deliveredThrough: 4, device: token)
            ])
            #expect(try results[0].get().first?.kind == .removed(app: "com.example.app", identifiers: ["n3"]))
            #expect(try await notifications(store).map(\.identifier) == ["n1"])
        },
        "notifications need a known device and app": { store in
            await #expect(throws: StoreError.self) { try await deliver("a", at: 1, to: store) }
            try await store.createDevice(device())
            await #expect(throws: StoreError.self) { try await deliver("a", at: 1, to: store) }
            #expect(try await store.snapshot(device: token)?.lastChange == 0)
        },
        "deleting an app or device removes its notifications": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await deliver("a", at: 1, to: store)
            #expect(try await store.deleteApp(topic: "com.example.app", device: token) != nil)
            #expect(try await notifications(store).isEmpty)
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await deliver("b", at: 2, to: store)
            #expect(try await store.deleteDevice(token: token, at: start))
            #expect(try await store.snapshot(device: token) == nil)
            #expect(try await store.changes(device: token, after: 0) == nil)
            try await store.createDevice(device())
            #expect(try await notifications(store).isEmpty)
            #expect(try await store.snapshot(device: token)?.lastChange == 0)
        },
        "devices are kept apart": { store in
            let other = String(repeating: "cd", count: 32)
            try await store.createDevice(device())
            try await store.createDevice(device(other))
            for token in [token, other] { _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token) }
            try await deliver("a", at: 1, to: store)
            #expect(try await notifications(store, device: other).isEmpty)
            #expect(try await store.deleteNotifications(app: "com.example.app", identifiers: ["a"], device: other) == nil)
            #expect(try await notifications(store).count == 1)
            #expect(try await store.snapshot(device: other)?.lastChange == 1)
        },
        "changes are numbered per device and listed after a number": { store in
            try await store.createDevice(device())
            let app = AppRecord(topic: "com.example.app", displayName: "Example")
            _ = try await store.saveApp(app, device: token)
            let a = try await deliver("a", at: 1, thread: "t", to: store)
            let b = try await deliver("b", at: 2, to: store)
            _ = try await store.deleteNotifications(app: app.topic, identifiers: ["b"], device: token)
            let expected = [
                DeviceChange(number: 1, kind: .appSaved(app)),
                DeviceChange(number: 2, kind: .delivered(a)),
                // "b" is gone: its delivery names nothing any more.
                DeviceChange(number: 3, kind: .superseded),
                DeviceChange(number: 4, kind: .removed(app: app.topic, identifiers: ["b"])),
            ]
            #expect(try await store.changes(device: token, after: 0)?.map(\.tokenless) == expected)
            #expect(try await store.changes(device: token, after: 2) == Array(expected[2...]))
            #expect(try await store.changes(device: token, after: 4) == [])
            let snapshot = try #require(try await store.snapshot(device: token))
            #expect(snapshot.lastChange == 4)
            #expect(snapshot.apps.map(\.tokenless) == [app])
            #expect(snapshot.notifications == [a])
            #expect(snapshot.device == device())
        },
        "a replaced notification's first delivery is superseded": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await deliver("a", at: 1, to: store)
            let replacement = try await deliver("a", at: 2, thread: "t", to: store)
            #expect(try await store.changes(device: token, after: 1) == [
                DeviceChange(number: 2, kind: .superseded), DeviceChange(number: 3, kind: .delivered(replacement)),
            ])
            #expect(try await store.deleteApp(topic: "com.example.app", device: token) != nil)
            #expect(try await store.changes(device: token, after: 0) == [
                DeviceChange(number: 1, kind: .superseded), DeviceChange(number: 2, kind: .superseded),
                DeviceChange(number: 3, kind: .superseded), DeviceChange(number: 4, kind: .appDeleted(topic: "com.example.app")),
            ])
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
        "concurrent deliveries are all kept, numbered without gaps": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...200 {
                    group.addTask { try await deliver("n\(index)", at: Double(index), to: store) }
                }
                try await group.waitForAll()
            }
            #expect(try await notifications(store).map(\.stamp.sequence) == Array(2...201))
            #expect(Set(try await notifications(store).map(\.identifier)).count == 200)
            #expect(try await store.changes(device: token, after: 1)?.map(\.number) == Array(2...201))
        },
        "a batch commits every device's writes in order, and a write that cannot be stored fails alone": { store in
            let other = String(repeating: "cd", count: 32)
            for deviceToken in [token, other] {
                try await store.createDevice(device(deviceToken))
                _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: deviceToken)
            }
            let date = start.addingTimeInterval(5.25)
            let writes: [NotificationWrite] = [
                .deliver(request("a"), app: "com.example.app", at: date, device: token),
                .deliver(request("x"), app: "com.example.app", at: date, device: other),
                .deliver(request("lost"), app: "com.example.missing", at: date, device: token),
                .deliver(request("b", thread: "t"), app: "com.example.app", at: date, device: token),
                .deliver(request("nobody"), app: "com.example.app", at: date, device: String(repeating: "0", count: 64)),
                .deliver(request("y"), app: "com.example.app", at: date, device: other),
            ]
            let results = try await store.commit(writes)
            #expect(results.count == writes.count)
            // Each device's numbers follow its last change (the app, 1), without gaps, in the batch's order.
            #expect(results.map { (try? $0.get())?.first?.number } == [2, 2, nil, 3, nil, 3])
            for failed in [2, 4] {
                guard case .failure(let error) = results[failed] else { Issue.record("write \(failed) was stored"); continue }
                #expect(error.code == .notFound)
            }
            #expect(try await notifications(store).map(\.identifier) == ["a", "b"])
            #expect(try await notifications(store).last?.content.threadIdentifier == "t")
            #expect(try await notifications(store, device: other).map(\.identifier) == ["x", "y"])
            #expect(try await store.changes(device: token, after: 1)?.map(\.number) == [2, 3])
            #expect(try await store.changes(device: other, after: 1) == results[1...].flatMap { (try? $0.get()) ?? [] }.filter {
                if case .delivered(let notification) = $0.kind { return ["x", "y"].contains(notification.identifier) }
                return false
            })
        },
        "a batch that pushes one notification twice keeps the last, and records both changes": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            var replacement = request("same", thread: "new")
            replacement.content.body = .plain("second")
            let results = try await store.commit([
                .deliver(request("same", thread: "old"), app: "com.example.app", at: start, device: token),
                .deliver(replacement, app: "com.example.app", at: start.addingTimeInterval(1), device: token),
            ])
            #expect(results.map { (try? $0.get())?.first?.number } == [2, 3])
            let stored = try await notifications(store)
            #expect(stored.map(\.identifier) == ["same"])
            #expect(stored.first?.content.body == .plain("second"))
            #expect(stored.first?.stamp.sequence == 3)
            #expect(try await store.changes(device: token, after: 1)?.map(\.number) == [2, 3])
        },
        "a batch with removals applies them in order with the deliveries": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await deliver("old", at: 1, to: store)
            let results = try await store.commit([
                .deliver(request("new"), app: "com.example.app", at: start, device: token),
                .remove(app: "com.example.app", identifiers: ["old", "never"], device: token),
                .remove(app: "com.example.app", identifiers: ["never"], device: token),
                .deliver(request("old"), app: "com.example.app", at: start, device: token),
            ])
            #expect(results.map { (try? $0.get())?.first?.number } == [3, 4, nil, 5])
            #expect(try results[1].get().first?.kind == .removed(app: "com.example.app", identifiers: ["old"]))
            #expect(try await notifications(store).map(\.identifier) == ["new", "old"])
        },
        "a delivery that takes its app past its limit removes the first delivered, as its second change": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            _ = try await store.saveApp(AppRecord(topic: "com.example.other"), device: token)
            // Changes 3-7; "early" is dated first, but delivered last: the first delivered go first.
            for (index, name) in ["n1", "n2", "n3", "n4", "early"].enumerated() {
                let date = name == "early" ? start : start.addingTimeInterval(Double(index + 1))
                _ = try await store.commit([.deliver(request(name), app: "com.example.app", at: date, device: token, notificationsPerApp: 5)])
            }
            // Pushed again (a collapse identifier), a notification is not counted twice.
            let again = try await store.commit([
                .deliver(request("n4"), app: "com.example.app", at: start.addingTimeInterval(9), device: token, notificationsPerApp: 5)
            ])
            #expect(try again[0].get().map(\.number) == [8])
            #expect(try await notifications(store).count == 5)
            let results = try await store.commit([
                .deliver(request("n6"), app: "com.example.app", at: start.addingTimeInterval(10), device: token, notificationsPerApp: 5),
                .deliver(request("o1"), app: "com.example.other", at: start.addingTimeInterval(10), device: token, notificationsPerApp: 5),
            ])
            #expect(try results[0].get().map(\.number) == [9, 11])
            #expect(try results[0].get().last?.kind == .removed(app: "com.example.app", identifiers: ["n1"]))
            #expect(try results[1].get().map(\.number) == [10])
            #expect(Set(try await notifications(store).map(\.identifier)) == ["n2", "n3", "n4", "early", "n6", "o1"])
            #expect(try await store.changes(device: token, after: 10)?.map(\.kind) == [.removed(app: "com.example.app", identifiers: ["n1"])])
            // A removal counts too: after it, the app has room again.
            _ = try await store.deleteNotifications(app: "com.example.app", identifiers: ["n1", "n2"], device: token)
            _ = try await store.commit([
                .deliver(request("n7"), app: "com.example.app", at: start.addingTimeInterval(11), device: token, notificationsPerApp: 5)
            ])
            #expect(Set(try await notifications(store).map(\.identifier)) == ["n3", "n4", "early", "n6", "n7", "o1"])
            // A trim on its own decides by the count in its transaction too; an app within its limit, or none, has nothing to trim.
            #expect(try await store.trimNotifications(app: "com.example.app", device: token, limit: 3)?.kind
                == .removed(app: "com.example.app", identifiers: ["n3", "early"]))
            #expect(try await store.trimNotifications(app: "com.example.app", device: token, limit: 3) == nil)
            #expect(try await store.trimNotifications(app: "com.example.missing", device: token, limit: 0) == nil)
        },
        "an app's count follows a batch's repeats and removals, and starts again when the app is reinstalled": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            func push(_ ids: String..., limit: Int = 2) async throws -> [[DeviceChange]] {
                try await store.commit(ids.map {
                    .deliver(request($0), app: "com.example.app", at: start, device: token, notificationsPerApp: limit)
                }).map { try $0.get() }
            }
            func stored() async throws -> Set<String> { Set(try await notifications(store).map(\.identifier)) }
            // One identifier twice in a batch is one notification: a second one fits a limit of 2.
            _ = try await push("a", "a")
            _ = try await push("b")
            #expect(try await stored() == ["a", "b"])
            // Delivered and removed in one batch: counted in and out again.
            _ = try await store.commit([
                .deliver(request("gone"), app: "com.example.app", at: start, device: token, notificationsPerApp: 2),
                .remove(app: "com.example.app", identifiers: ["gone"], device: token),
            ])
            #expect(try await stored() == ["a", "b"])
            #expect(try await push("c").last?.last?.kind == .removed(app: "com.example.app", identifiers: ["a"]))
            // Reinstalled, the app counts from nothing: one notification fits a limit of 1.
            _ = try await store.deleteApp(topic: "com.example.app", device: token)
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            #expect(try await push("d", limit: 1).map(\.count) == [1])
            #expect(try await stored() == ["d"])
        },
        "a batch trims only the apps it added to: a replacement past a lowered limit waits for the next addition": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            _ = try await store.commit(["a", "b", "c"].map {
                .deliver(request($0), app: "com.example.app", at: start, device: token, notificationsPerApp: 5)
            })
            let replaced = try await store.commit([
                .deliver(request("c"), app: "com.example.app", at: start, device: token, notificationsPerApp: 2)
            ])
            #expect(try replaced[0].get().count == 1)
            #expect(Set(try await notifications(store).map(\.identifier)) == ["a", "b", "c"])
            let added = try await store.commit([
                .deliver(request("d"), app: "com.example.app", at: start, device: token, notificationsPerApp: 2)
            ])
            #expect(try added[0].get().last?.kind == .removed(app: "com.example.app", identifiers: ["a", "b"]))
            #expect(Set(try await notifications(store).map(\.identifier)) == ["c", "d"])
        },
        "a batch trims each app once, after its last delivery, also with removals among its writes": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            let results = try await store.commit(
                [.remove(app: "com.example.app", identifiers: ["never"], device: token)]
                    + ["a1", "a2", "a3"].map {
                        .deliver(request($0), app: "com.example.app", at: start, device: token, notificationsPerApp: 1)
                    })
            #expect(try results.map { try $0.get().count } == [0, 1, 1, 2])
            #expect(try results[3].get().last?.kind == .removed(app: "com.example.app", identifiers: ["a1", "a2"]))
            #expect(try await notifications(store).map(\.identifier) == ["a3"])
        },
        "one trim removes at most its bound, so an app far past a lowered limit comes down over several": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            let count = NotificationLimit.maximumRemovedByOneTrim + 5
            _ = try await store.commit((1...count).map {
                .deliver(request("n\($0)"), app: "com.example.app", at: start, device: token)
            })
            guard case .removed(_, let first)? = try await store.trimNotifications(app: "com.example.app", device: token, limit: 2)?.kind,
                case .removed(_, let second)? = try await store.trimNotifications(app: "com.example.app", device: token, limit: 2)?.kind
            else { Issue.record("a trim removed nothing"); return }
            #expect(first.count == NotificationLimit.maximumRemovedByOneTrim)
            #expect(first.first == "n1")
            #expect(second == ["n1001", "n1002", "n1003"])
            #expect(try await notifications(store).map(\.identifier) == ["n\(count - 1)", "n\(count)"])
        },
        "events are numbered changes, followed in order and kept in the snapshot, the latest hundred": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            func event(_ name: String, type: String = "background") -> DeviceEvent {
                DeviceEvent(
                    app: "com.example.app", pushType: type, messageID: "id-\(name)", date: start.addingTimeInterval(0.125), priority: 5,
                    action: "woke the app", payload: JSONValue.object(JSONObject([("aps", ["content-available": 1]), ("name", .string(name))])))
            }
            #expect(try await store.recordEvent(event("first"), device: token) == DeviceChange(number: 2, kind: .event(event("first"))))
            try await deliver("n", at: 1, to: store)
            let batch = try await store.commit([
                .record(event("second", type: "voip"), device: token),
                .deliver(request("m"), app: "com.example.app", at: start, device: token),
                .record(event("third"), device: token),
            ])
            #expect(try batch.map { try $0.get().map(\.number) } == [[4], [5], [6]])
            let followed = try await store.changes(device: token, after: 1) ?? []
            #expect(followed.compactMap { change -> String? in
                if case .event(let event) = change.kind { return "\(change.number) \(event.pushType) \(event.messageID)" }
                return nil
            } == ["2 background id-first", "4 voip id-second", "6 background id-third"])
            #expect(followed.first == DeviceChange(number: 2, kind: .event(event("first"))))
            var snapshot = try await store.snapshot(device: token)
            #expect(snapshot?.events == [
                RecordedEvent(number: 2, event: event("first")), RecordedEvent(number: 4, event: event("second", type: "voip")),
                RecordedEvent(number: 6, event: event("third")),
            ])
            // An event needs the app and the device, as a delivery does.
            await #expect { try await store.recordEvent(DeviceEvent(
                app: "com.example.missing", pushType: "voip", messageID: "x", date: start, priority: 10, action: "", payload: [:]), device: token)
            } throws: { ($0 as? StoreError)?.code == .notFound }
            await #expect { try await store.recordEvent(event("lost"), device: String(repeating: "cd", count: 32)) } throws: {
                ($0 as? StoreError)?.code == .notFound
            }
            _ = try await store.commit((1...DeviceEvent.keptPerDevice).map { .record(event("e\($0)"), device: token) })
            snapshot = try await store.snapshot(device: token)
            #expect(snapshot?.events.count == DeviceEvent.keptPerDevice)
            #expect(snapshot?.events.first?.event.messageID == "id-e1")
            #expect(snapshot?.events.last?.number == snapshot?.lastChange)
        },
        "Live Activities change with the event that says so, in one transaction, and leave with their app": { store in
            try await store.createDevice(device())
            let declarations = try ActivityDeclarations(
                types: [try ActivityType(name: "DeliveryAttributes", contentState: try ActivitySchema(json: ["eta": "date"]))],
                supportsFrequentUpdates: true)
            _ = try await store.saveApp(AppRecord(topic: "com.example.app", activities: declarations), device: token)
            _ = try await store.saveApp(AppRecord(topic: "com.example.other"), device: token)
            #expect(try await store.apps(device: token).first?.activities == declarations)
            @Sendable func activity(_ id: String, app: String = "com.example.app") -> LiveActivity {
                LiveActivity(
                    id: id, app: app, typeName: "DeliveryAttributes", attributes: ["order": "42"], contentState: ["eta": 700_000_000.5],
                    timestamp: start, startedAt: start.addingTimeInterval(0.25), staleDate: start.addingTimeInterval(60), relevanceScore: 100,
                    updateToken: "token-\(id)", priority10Updates: [start])
            }
            @Sendable func event(_ action: String) -> DeviceEvent {
                DeviceEvent(app: "com.example.app", pushType: "liveactivity", messageID: action, date: start, priority: 10, action: action, payload: [:])
            }
            let started = try await store.updateActivities(device: token, app: "com.example.app") { activities, declared in
                #expect(declared == declarations)
                activities.append(activity("a"))
                return event("started")
            }
            #expect(started == [DeviceChange(number: 3, kind: .activities([activity("a")])), DeviceChange(number: 4, kind: .event(event("started")))])
            // Nothing changed: the event alone.
            let ignored = try await store.updateActivities(device: token, app: "com.example.app") { activities, _ in
                #expect(activities == [activity("a")])
                return event("ignored")
            }
            #expect(ignored.map(\.number) == [5])
            // An update that throws stores nothing, and its error comes out.
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await store.updateActivities(device: token, app: "com.example.app") { activities, _ in
                    activities = []
                    throw Refused()
                }
            }
            _ = try await store.updateActivities(device: token, app: "com.example.other") { activities, _ in
                activities.append(activity("b", app: "com.example.other"))
                return event("other")
            }
            #expect(try await store.snapshot(device: token)?.activities == [activity("a"), activity("b", app: "com.example.other")])
            #expect(try await store.changes(device: token, after: 2)?.first?.kind == .activities([activity("a"), activity("b", app: "com.example.other")]))
            await #expect { try await store.updateActivities(device: token, app: "com.example.missing") { _, _ in event("x") } } throws: {
                ($0 as? StoreError)?.code == .notFound
            }
            // No event (a person's doing): the change alone; nothing at all: no change, no number taken.
            let dismissed = try await store.updateActivities(device: token, app: "com.example.other") { activities, _ in
                activities.removeAll { $0.id == "b" }
                return nil
            }
            #expect(dismissed.map(\.kind) == [.activities([activity("a")])])
            let last = try await store.snapshot(device: token)?.lastChange
            #expect(try await store.updateActivities(device: token, app: "com.example.other") { _, _ in nil }.isEmpty)
            #expect(try await store.snapshot(device: token)?.lastChange == last)
            _ = try await store.updateActivities(device: token, app: "com.example.other") { activities, _ in
                activities.append(activity("b", app: "com.example.other"))
                return nil
            }
            _ = try await store.deleteApp(topic: "com.example.other", device: token)
            #expect(try await store.snapshot(device: token)?.activities == [activity("a")])
        },
        "racing activity changes of one device all stay": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        _ = try await store.updateActivities(device: token, app: "com.example.app") { activities, _ in
                            activities.append(LiveActivity(
                                id: "a\(index)", app: "com.example.app", typeName: "T", attributes: [:], contentState: [:], timestamp: start,
                                startedAt: start))
                            return DeviceEvent(
                                app: "com.example.app", pushType: "liveactivity", messageID: "\(index)", date: start, priority: 10, action: "", payload: [:])
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(Set(try await store.snapshot(device: token)?.activities.map(\.id) ?? []) == Set((0..<20).map { "a\($0)" }))
            #expect(try await store.snapshot(device: token)?.lastChange == 41)
        },
        "a device's settings are an iPhone's until changed, changed in one transaction, and journaled": { store in
            try await store.createDevice(device())
            #expect(try await store.snapshot(device: token)?.settings == .newDevice)
            let work = try FocusSettings(name: "Work", mode: .on, allowedApps: ["com.example.app"])
            let changed = try await store.updateDeviceSettings(device: token) { stored in
                #expect(stored == .newDevice)
                var settings = stored
                settings.focus = work
                settings.lockScreen = .list
                return settings
            }
            var expected = DeviceSettings.newDevice
            expected.focus = work
            expected.lockScreen = .list
            #expect(changed == DeviceChange(number: 1, kind: .settings(expected)))
            #expect(try await store.snapshot(device: token)?.settings == expected)
            #expect(try await store.changes(device: token, after: 0)?.map(\.kind) == [.settings(expected)])
            // Unchanged: no change, no number taken.
            #expect(try await store.updateDeviceSettings(device: token) { $0 } == nil)
            #expect(try await store.snapshot(device: token)?.lastChange == 1)
            // An update that throws stores nothing, and its error comes out.
            struct Refused: Error {}
            await #expect(throws: Refused.self) { try await store.updateDeviceSettings(device: token) { _ in throw Refused() } }
            await #expect { try await store.updateDeviceSettings(device: "ff" + token.dropFirst(2)) { $0 } } throws: {
                ($0 as? StoreError)?.code == .notFound
            }
            // Back to the defaults: stored as none, read back as the defaults.
            _ = try await store.updateDeviceSettings(device: token) { _ in .newDevice }
            #expect(try await store.snapshot(device: token)?.settings == .newDevice)
        },
        "racing settings changes of one device each apply to the one before": { store in
            try await store.createDevice(device())
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        _ = try await store.updateDeviceSettings(device: token) { stored in
                            var settings = stored
                            settings.focus = try FocusSettings(
                                name: "Focus", mode: .on, allowedApps: stored.focus.allowedApps.union(["app\(index)"]))
                            return settings
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.snapshot(device: token)?.settings.focus.allowedApps == Set((0..<12).map { "app\($0)" }))
            #expect(try await store.snapshot(device: token)?.lastChange == 12)
        },
        "a device keeps its environment, and a key the environments it may be used in": { store in
            let production = DeviceRecord(token: token, secretHash: "h", name: "Release build", createdAt: start, environment: .production)
            try await store.createDevice(production)
            try await store.createDevice(device(String(repeating: "cd", count: 32)))
            #expect(try await store.device(token: token)?.environment == .production)
            #expect(try await store.device(token: String(repeating: "cd", count: 32))?.environment == .development)
            #expect(try await store.snapshot(device: token)?.device == production)
            #expect(Set(try await store.devices(newestFirst: 5).map(\.environment)) == [.production, .development])
            let restricted = SigningKeyRecord(
                keyID: "ABC123DEFG", teamID: "DEF123GHIJ", publicKeyPEM: "pem", topics: ["com.example.app"], createdAt: start,
                environments: [.development])
            try await store.saveSigningKey(restricted)
            #expect(try await store.signingKey(id: "ABC123DEFG") == restricted)
            var both = restricted
            both.environments = [.development, .production]
            try await store.saveSigningKey(both)
            #expect(try await store.signingKeys() == [both])
        },
        "broadcast channels: per app and environment, bounded under racing creations, their latest broadcast kept": { store in
            func channel(_ id: String, app: String = "com.example.app", environment: APNsEnvironment = .development) -> BroadcastChannel {
                BroadcastChannel(id: id, app: app, environment: environment, storagePolicy: .mostRecentMessageStored, createdAt: start)
            }
            try await store.createChannel(channel("AQ=="), maximumPerApp: 5)
            try await store.createChannel(channel("Ag==", environment: .production), maximumPerApp: 5)
            try await store.createChannel(channel("Aw==", app: "com.example.other"), maximumPerApp: 5)
            #expect(try await store.channel(id: "AQ==") == channel("AQ=="))
            #expect(try await store.channel(id: "BA==") == nil)
            #expect(try await store.channels(app: "com.example.app", environment: .development) == ["AQ=="])
            #expect(try await store.channels(app: "com.example.app", environment: .production) == ["Ag=="])
            let message = StoredBroadcast(
                payload: ["aps": ["event": "update"]], apnsID: "id", priority: 5, sentAt: start, expiresAt: start.addingTimeInterval(60))
            #expect(try await store.storeBroadcast(message, channel: "AQ=="))
            #expect(try await !store.storeBroadcast(message, channel: "BA=="))
            #expect(try await store.channel(id: "AQ==")?.lastMessage == message)
            // 20 at once against a limit of 5, one already there: exactly 4 more.
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        do {
                            try await store.createChannel(channel("r\(index)"), maximumPerApp: 5)
                            return true
                        } catch let error as StoreError where error.code == .full {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(created == 4)
            #expect(try await store.channels(app: "com.example.app", environment: .development).count == 5)
            #expect(try await store.deleteChannel(id: "AQ=="))
            #expect(try await !store.deleteChannel(id: "AQ=="))
            #expect(try await store.channel(id: "AQ==") == nil)
            // Devices listening: an activity of the app on the channel, in the environment.
            try await store.createDevice(device())
            let production = String(repeating: "cd", count: 32)
            try await store.createDevice(DeviceRecord(token: production, secretHash: "h", name: "p", createdAt: start, environment: .production))
            for token in [token, production] {
                _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
                _ = try await store.updateActivities(device: token, app: "com.example.app") { activities, _ in
                    activities.append(LiveActivity(
                        id: "a", app: "com.example.app", typeName: "T", attributes: [:], contentState: [:], timestamp: start, startedAt: start,
                        channelID: "Ag=="))
                    return nil
                }
            }
            #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .development) == [token])
            #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .production) == [production])
            #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.other", environment: .development) == [])
            #expect(try await store.devices(listeningOn: "AQ==", app: "com.example.app", environment: .development) == [])
            // Kept with the activities: a device whose activities left the channel, or whose app went, no longer listens.
            _ = try await store.updateActivities(device: production, app: "com.example.app") { activities, _ in
                activities.removeAll()
                return nil
            }
            #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .production) == [])
            _ = try await store.deleteApp(topic: "com.example.app", device: token)
            #expect(try await store.devices(listeningOn: "Ag==", app: "com.example.app", environment: .development) == [])
            // Activities started at once on one device, each on a channel of its own: every channel finds the device.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        _ = try await store.updateActivities(device: production, app: "com.example.app") { activities, _ in
                            activities.append(LiveActivity(
                                id: "r\(index)", app: "com.example.app", typeName: "T", attributes: [:], contentState: [:], timestamp: start,
                                startedAt: start, channelID: Data([0x72, UInt8(index)]).base64EncodedString()))
                            return nil
                        }
                    }
                }
                try await group.waitForAll()
            }
            for index in 0..<8 {
                #expect(try await store.devices(listeningOn: Data([0x72, UInt8(index)]).base64EncodedString(), app: "com.example.app", environment: .production) == [production])
            }
            // An identifier no channel can have (a stranger's text, longer than an index key may be) is kept with its
            // activity and listed nowhere; a new content on the same channels keeps every listener.
            let unreachable = String(repeating: "A", count: 3000)
            _ = try await store.updateActivities(device: production, app: "com.example.app") { activities, _ in
                activities.append(LiveActivity(
                    id: "long", app: "com.example.app", typeName: "T", attributes: [:], contentState: [:], timestamp: start, startedAt: start,
                    channelID: unreachable))
                activities[0].contentState = ["score": 1]
                return nil
            }
            #expect(try await store.snapshot(device: production)?.activities.contains { $0.channelID == unreachable } == true)
            #expect(try await store.devices(listeningOn: unreachable, app: "com.example.app", environment: .production) == [])
            #expect(try await store.devices(listeningOn: Data([0x72, 0]).base64EncodedString(), app: "com.example.app", environment: .production) == [production])
        },
        "a hundredth of a large limit more goes, and racing deliveries do not pass the limit": { store in
            try await store.createDevice(device())
            _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
            for index in 1...200 { try await deliver("n\(index)", at: Double(index), to: store) }
            let results = try await store.commit([
                .deliver(request("last"), app: "com.example.app", at: start.addingTimeInterval(300), device: token, notificationsPerApp: 200)
            ])
            // 201 past a limit of 200: down to 198.
            guard case .removed(_, let trimmed)? = try results[0].get().last?.kind else { Issue.record("no trim"); return }
            #expect(trimmed == ["n1", "n2", "n3"])
            #expect(try await notifications(store).count == 198)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        _ = try await store.commit([
                            .deliver(request("r\(index)"), app: "com.example.app", at: start.addingTimeInterval(400), device: token, notificationsPerApp: 200)
                        ])
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await notifications(store).count <= 200)
        },
    ]

    /// Checks that a store made with a retention of 10 changes forgets older ones, and says so to a reader
    /// that far behind, while a snapshot still holds everything.
    public static func checkRetention(store: some NotificationStore) async throws {
        try await store.createDevice(device())
        _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
        for index in 1...39 { try await deliver("n\(index)", at: Double(index), to: store) }
        // 40 changes: those up to 30 are forgotten.
        #expect(try await store.changes(device: token, after: 29) == nil)
        #expect(try await store.changes(device: token, after: 30)?.map(\.number) == Array(31...40))
        #expect(try await store.snapshot(device: token)?.notifications.count == 39)
        // Batches that pass over the step at 50 forget too.
        let batch = (41...52).map { NotificationWrite.deliver(request("m\($0)"), app: "com.example.app", at: start, device: token) }
        _ = try await store.commit(Array(batch[..<4]))
        _ = try await store.commit(Array(batch[4...]))
        #expect(try await store.changes(device: token, after: 40) == nil)
        #expect(try await store.changes(device: token, after: 42)?.map(\.number) == Array(43...52))
    }
}

extension AppRecord {
    /// The app without the registration token the store gave it, to compare with the record that was saved.
    public var tokenless: AppRecord {
        var app = self
        app.firebase.registrationToken = nil
        return app
    }
}

extension DeviceChange {
    /// The change with a saved app's registration token taken out (``AppRecord/tokenless``).
    public var tokenless: DeviceChange {
        guard case .appSaved(let app) = kind else { return self }
        return DeviceChange(number: number, kind: .appSaved(app.tokenless))
    }
}
