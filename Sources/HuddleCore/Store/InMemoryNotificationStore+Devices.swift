public import Foundation

extension InMemoryNotificationStore {
    public func createDevice(_ device: DeviceRecord, maximumDevices: Int) throws {
        guard devices[device.token] == nil else { throw StoreError(.conflict, "device \(device.token) exists") }
        guard devices.count < maximumDevices else { throw UpdateRefusal.tooManyDevices(devices.count) }
        devices[device.token] = Device(record: device)
        unregistered[device.token] = nil
    }

    public func device(token: String) -> DeviceRecord? {
        devices[token]?.record
    }

    public func devices(newestFirst limit: Int) -> [DeviceRecord] {
        Array(devices.values.map(\.record).sorted { ($0.createdAt, $0.token) > ($1.createdAt, $1.token) }.prefix(limit))
    }

    public func deviceCount() -> Int {
        devices.count
    }

    public func deleteDevice(token: String, at date: Date) -> Bool {
        guard let device = devices.removeValue(forKey: token) else { return false }
        for app in device.apps.values { forgetRegistration(of: app) }
        unregistered[token] = date
        return true
    }

    public func unregistrationDate(token: String) -> Date? {
        unregistered[token]
    }

    public func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) throws -> DeviceChange {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        let current = device.apps[topic]
        let app = try UpdateRefusal.updated(current, by: update, topic: topic)
        if current == nil { try UpdateRefusal.checkRoom(count: device.apps.count, maximum: maximumApps) }
        devices[token]?.apps[topic] = app
        if let registrationToken = app.firebase.registrationToken {
            registrations[registrationToken] = (token, topic)
            if let id = FirebaseInstallation.installationID(of: registrationToken) { registrationsByInstallation[String(id)] = registrationToken }
        }
        // A new subscription's endpoint replaces the app's old one, which names nothing after.
        if let old = current?.webPush?.id, old != app.webPush?.id { webPushSubscriptions[old] = nil }
        if let id = app.webPush?.id { webPushSubscriptions[id] = (token, topic) }
        devices[token]?.releaseHeld()
        let number = record(token, .appSaved, topic: app.topic)
        return DeviceChange(number: number, kind: .appSaved(app))
    }

    public func apps(device token: String) -> [AppRecord] {
        (devices[token]?.apps.values).map { $0.sorted { $0.topic < $1.topic } } ?? []
    }

    public func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) throws -> DeviceChange? {
        guard let app = devices[token]?.apps[topic] else { return nil }
        try precondition?(app)
        devices[token]?.apps[topic] = nil
        forgetRegistration(of: app)
        let heldOfApp = devices[token]?.notifications[topic]?.values.count { $0.mark == .held } ?? 0
        devices[token]?.heldCount -= heldOfApp
        devices[token]?.notifications[topic] = nil
        devices[token]?.activities.removeAll { $0.app == topic }
        let number = record(token, .appDeleted, topic: topic)
        return DeviceChange(number: number, kind: .appDeleted(topic: topic))
    }

    public func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) throws -> DeviceChange? {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        let settings = try update(device.settings)
        guard settings != device.settings else { return nil }
        devices[token]?.settings = settings
        devices[token]?.releaseHeld()
        return DeviceChange(number: record(token, .settings, topic: ""), kind: .settings(settings))
    }

    public func registrationToken(installationID: String) -> String? {
        guard FirebaseInstallation.isInstallationID(installationID) else { return nil }
        return registrationsByInstallation[installationID]
    }

    public func firebaseRecipient(registrationToken: String) -> FirebaseRecipient? {
        guard let (token, topic) = registrations[registrationToken], let device = devices[token], let app = device.apps[topic] else { return nil }
        return FirebaseRecipient(device: device.record, app: topic, installation: app.firebase)
    }

    public func webPushRecipient(subscriptionID: String) -> WebPushRecipient? {
        guard let (token, topic) = webPushSubscriptions[subscriptionID], let device = devices[token],
            let subscription = device.apps[topic]?.webPush, subscription.id == subscriptionID
        else { return nil }
        return WebPushRecipient(device: device.record, app: topic, subscription: subscription)
    }

    /// An app that went takes its registration token, the token's subscriptions and its web push subscription with it.
    func forgetRegistration(of app: AppRecord) {
        if let id = app.webPush?.id { webPushSubscriptions[id] = nil }
        guard let registrationToken = app.firebase.registrationToken else { return }
        registrations[registrationToken] = nil
        if let id = FirebaseInstallation.installationID(of: registrationToken) { registrationsByInstallation[String(id)] = nil }
        topicsOfToken[registrationToken] = nil
    }
}
