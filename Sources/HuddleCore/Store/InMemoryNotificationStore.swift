public import Foundation

/// A ``NotificationStore`` that keeps everything in memory: for tests, previews and `huddle serve
/// --database memory`. Nothing survives the process.
public actor InMemoryNotificationStore: NotificationStore {
    private struct Device {
        var record: DeviceRecord
        var apps: [String: AppRecord] = [:]
        /// By app, then by identifier compared by Unicode scalars (as SQLite and PostgreSQL compare them).
        var notifications: [String: [ExactString: DeliveredNotification]] = [:]
        var lastChange: UInt64 = 0
        /// The latest changes, oldest first, as they were recorded (their subjects resolved when read).
        var journal: [ChangeRecord] = []
        /// The oldest change the journal still holds (the next one, while it is empty).
        var oldestKept: UInt64 = 1
        var activities: [LiveActivity] = []
        var settings = DeviceSettings.iPhoneDefaults
        /// The latest scheduled summary that came.
        var summary: ScheduledSummary?

        /// How many notifications are held for the summary: the summary service asks every second, which must not
        /// read every notification of every device.
        var heldCount = 0

        /// Stores (or, given `nil`, removes) a notification, keeping ``heldCount``.
        mutating func set(_ notification: DeliveredNotification?, app: String, key: ExactString) {
            if notifications[app]?[key]?.mark == .held { heldCount -= 1 }
            if notification?.mark == .held { heldCount += 1 }
            if let notification {
                notifications[app, default: [:]][key] = notification
            } else {
                notifications[app]?[key] = nil
            }
        }

        /// Hands over the held notifications of the apps whose held notifications the settings no longer hold.
        mutating func releaseHeld() {
            guard heldCount > 0 else { return }
            for (topic, notifications) in self.notifications {
                guard let app = apps[topic], !settings.holds(appSettings: app.settings) else { continue }
                for (key, notification) in notifications where notification.mark == .held {
                    set(notification.marked(.shown), app: topic, key: key)
                }
            }
        }
    }

    private var devices: [String: Device] = [:]
    private var unregistered: [String: Date] = [:]
    private var keys: [String: SigningKeyRecord] = [:]
    private var broadcastChannels: [String: BroadcastChannel] = [:]
    private var serviceAccountKeys: [String: ServiceAccountRecord] = [:]
    /// Each FCM registration token's device and app.
    private var registrations: [String: (device: String, app: String)] = [:]
    /// Each registration token by its Firebase installation ID.
    private var registrationsByInstallation: [String: String] = [:]
    /// Each registration token's topics, by project.
    private var topicsOfToken: [String: [String: Set<String>]] = [:]
    private let retention: ChangeRetention

    public init(retention: ChangeRetention = ChangeRetention()) {
        self.retention = retention
    }

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

    public func deliver(_ request: NotificationRequest, app: String, at date: Date, device token: String) throws -> DeviceChange {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard let appRecord = device.apps[app] else { throw StoreError(.notFound, "device \(token) has no app \(app)") }
        let mark = device.settings.mark(for: request, app: app, appSettings: appRecord.settings, capabilities: appRecord.capabilities, at: date)
        let number = record(token, .delivered, topic: app, identifiers: [request.identifier])
        let notification = DeliveredNotification(app: app, request: request, stamp: DeliveryStamp(date: date, sequence: number), mark: mark)
        devices[token]?.set(notification, app: app, key: ExactString(request.identifier))
        return DeviceChange(number: number, kind: .delivered(notification))
    }

    public func updateActivities(device token: String, app topic: String, _ update: ActivitiesUpdate) throws -> [DeviceChange] {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard let app = device.apps[topic] else { throw StoreError(.notFound, "device \(token) has no app \(topic)") }
        var activities = device.activities
        let event = try update(&activities, app.activities)
        var changes: [DeviceChange] = []
        if activities != device.activities {
            devices[token]?.activities = activities
            changes.append(DeviceChange(number: record(token, .activities, topic: topic), kind: .activities(activities)))
        }
        if let event { changes.append(try recordEvent(event, device: token)) }
        return changes
    }

    public func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) throws -> DeviceChange? {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        let settings = try update(device.settings)
        guard settings != device.settings else { return nil }
        devices[token]?.settings = settings
        devices[token]?.releaseHeld()
        return DeviceChange(number: record(token, .settings, topic: ""), kind: .settings(settings))
    }

    public func holdingDevices(knowingSettingsAsOf known: [String: UInt64]) -> [HoldingDevice] {
        devices.values.filter { $0.heldCount > 0 }.compactMap { device in
            let held = device.notifications.values.flatMap(\.values).filter { $0.mark == .held }
            return held.map(\.date).min().map { oldest in
                HoldingDevice(
                    token: device.record.token, oldestHeld: oldest, lastChange: device.lastChange,
                    settings: known[device.record.token] == device.lastChange ? nil : device.settings)
            }
        }.sorted { $0.token < $1.token }
    }

    public func deliverSummaries(device token: String, dueBy date: Date?) throws -> [DeviceChange] {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        let held = device.notifications.values.flatMap(\.values).filter { $0.mark == .held }.map { notification in
            (notification: notification.heldInSummary, arrived: notification.date)
        }
        var changes: [DeviceChange] = []
        for summary in ScheduledSummary.due(held, settings: device.settings, dueBy: date) {
            for (app, identifier) in summary.notifications {
                guard let notification = devices[token]?.notifications[app]?[ExactString(identifier)] else { continue }
                devices[token]?.set(notification.marked(.shown), app: app, key: ExactString(identifier))
            }
            devices[token]?.summary = summary
            changes.append(DeviceChange(number: record(token, .summary, topic: "", summary: summary), kind: .summary(summary)))
        }
        return changes
    }

    public func recordEvent(_ event: DeviceEvent, device token: String) throws -> DeviceChange {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard device.apps[event.app] != nil else { throw StoreError(.notFound, "device \(token) has no app \(event.app)") }
        let number = record(token, .event, topic: event.app, event: event)
        return DeviceChange(number: number, kind: .event(event))
    }

    public func deleteNotifications(app: String, identifiers: [String], deliveredThrough: UInt64?, device token: String) -> DeviceChange? {
        var removed: [String] = []
        for identifier in identifiers {
            guard let stored = devices[token]?.notifications[app]?[ExactString(identifier)],
                stored.stamp.sequence <= deliveredThrough ?? .max
            else { continue }
            devices[token]?.set(nil, app: app, key: ExactString(identifier))
            removed.append(identifier)
        }
        guard !removed.isEmpty else { return nil }
        let number = record(token, .removed, topic: app, identifiers: removed)
        return DeviceChange(number: number, kind: .removed(app: app, identifiers: removed))
    }

    public func trimNotifications(app: String, device token: String, limit: Int) -> DeviceChange? {
        guard let notifications = devices[token]?.notifications[app], notifications.count > limit else { return nil }
        let leaving = Self.oldest(NotificationLimit.removedByTrimming(count: notifications.count, limit: limit), of: notifications.values)
        return deleteNotifications(app: app, identifiers: leaving.map(\.identifier), deliveredThrough: nil, device: token)
    }

    /// The `count` first delivered of `notifications`, oldest first, without sorting them all: a trim takes a
    /// hundredth of an app's notifications, and an app at its limit is trimmed every hundredth delivery.
    static func oldest(_ count: Int, of notifications: some Collection<DeliveredNotification>) -> [DeliveredNotification] {
        guard count > 0 else { return [] }
        var oldest: [DeliveredNotification] = []
        oldest.reserveCapacity(count + 1)
        for notification in notifications {
            let sequence = notification.stamp.sequence
            if oldest.count == count, let newest = oldest.last, sequence >= newest.stamp.sequence { continue }
            // Where it goes among those kept so far, found by halving.
            var low = 0
            var high = oldest.count
            while low < high {
                let middle = (low + high) / 2
                if oldest[middle].stamp.sequence < sequence { low = middle + 1 } else { high = middle }
            }
            oldest.insert(notification, at: low)
            if oldest.count > count { oldest.removeLast() }
        }
        return oldest
    }

    /// Each write in turn, in one step of the actor: nothing else runs between them. As the databases do,
    /// each app the batch added notifications to (a replacement adds none) is trimmed once, after the batch's
    /// writes; the trim is a change of the app's last delivery in the batch.
    public func commit(_ writes: [NotificationWrite]) -> [Result<[DeviceChange], StoreError>] {
        var added: Set<DeviceApp> = []
        var results = writes.map { write -> Result<[DeviceChange], StoreError> in
            do {
                switch write {
                case .deliver(let request, let app, let date, let token, _):
                    let before = devices[token]?.notifications[app]?.count ?? 0
                    let change = try deliver(request, app: app, at: date, device: token)
                    if devices[token]?.notifications[app]?.count ?? 0 > before { added.insert(DeviceApp(device: token, topic: app)) }
                    return .success([change])
                case .remove(let app, let identifiers, let deliveredThrough, let token):
                    return .success(
                        [deleteNotifications(app: app, identifiers: identifiers, deliveredThrough: deliveredThrough, device: token)]
                            .compactMap { $0 })
                case .record(let event, let token):
                    return .success([try recordEvent(event, device: token)])
                }
            } catch {
                return .failure(error as? StoreError ?? StoreError(.corrupt, "\(error)"))
            }
        }
        for delivery in NotificationLimit.lastDeliveryPerApp(writes.storedDeliveries(results)) where added.contains(delivery.app) {
            if let trim = trimNotifications(app: delivery.app.topic, device: delivery.app.device, limit: delivery.limit) {
                results[delivery.position] = results[delivery.position].map { $0 + [trim] }
            }
        }
        return results
    }

    public func snapshot(device token: String) -> DeviceSnapshot? {
        guard let device = devices[token] else { return nil }
        let notifications = device.notifications.values.flatMap(\.values).sorted { $0.stamp.sequence < $1.stamp.sequence }
        let events = device.journal.compactMap { record in record.event.map { RecordedEvent(number: record.number, event: $0) } }
            .suffix(DeviceEvent.keptPerDevice)
        return DeviceSnapshot(
            device: device.record, apps: apps(device: token), notifications: notifications, lastChange: device.lastChange, events: Array(events),
            activities: device.activities, settings: device.settings, summary: device.summary)
    }

    public func changes(device token: String, after number: UInt64) -> [DeviceChange]? {
        guard let device = devices[token] else { return nil }
        guard number + 1 >= device.oldestKept else { return nil }
        return device.journal.filter { $0.number > number }.map { record in
            record.change(
                notification: record.identifiers.first.flatMap { device.notifications[record.topic]?[ExactString($0)] }, app: device.apps[record.topic],
                activities: device.activities, settings: device.settings)
        }
    }

    public func saveSigningKey(_ key: SigningKeyRecord) {
        keys[key.keyID] = key
    }

    public func signingKey(id: String) -> SigningKeyRecord? {
        keys[id]
    }

    public func signingKeys() -> [SigningKeyRecord] {
        keys.values.sorted { $0.keyID < $1.keyID }
    }

    public func deleteSigningKey(id: String) -> Bool {
        keys.removeValue(forKey: id) != nil
    }

    public func createChannel(_ channel: BroadcastChannel, maximumPerApp: Int) throws {
        let count = broadcastChannels.values.count { $0.app == channel.app && $0.environment == channel.environment }
        guard count < maximumPerApp else { throw UpdateRefusal.tooManyChannels(count, app: channel.app) }
        broadcastChannels[channel.id] = channel
    }

    public func channel(id: String) -> BroadcastChannel? {
        broadcastChannels[id]
    }

    public func channels(app: String, environment: APNsEnvironment) -> [String] {
        broadcastChannels.values.filter { $0.app == app && $0.environment == environment }
            .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.id)
    }

    public func deleteChannel(id: String) -> Bool {
        broadcastChannels.removeValue(forKey: id) != nil
    }

    public func storeBroadcast(_ message: StoredBroadcast, channel id: String) -> Bool {
        guard broadcastChannels[id] != nil else { return false }
        broadcastChannels[id]?.lastMessage = message
        return true
    }

    /// The databases' rule (their `activity_channels`): the channels ``LiveActivity/channels(of:)`` keeps.
    public func devices(listeningOn channel: String, app: String, environment: APNsEnvironment) -> [String] {
        let listening = LiveActivity.ChannelListening(channel: channel, app: app)
        return devices.values.filter { device in
            device.record.environment == environment && LiveActivity.channels(of: device.activities).contains(listening)
        }.map(\.record.token).sorted()
    }

    public func saveServiceAccount(_ account: ServiceAccountRecord) {
        serviceAccountKeys[account.keyID] = account
    }

    public func serviceAccount(keyID: String) -> ServiceAccountRecord? {
        serviceAccountKeys[keyID]
    }

    public func serviceAccounts() -> [ServiceAccountRecord] {
        serviceAccountKeys.values.sorted { $0.keyID < $1.keyID }
    }

    public func deleteServiceAccount(keyID: String) -> Bool {
        serviceAccountKeys.removeValue(forKey: keyID) != nil
    }

    public func registrationToken(installationID: String) -> String? {
        guard FirebaseInstallation.isInstallationID(installationID) else { return nil }
        return registrationsByInstallation[installationID]
    }

    public func firebaseRecipient(registrationToken: String) -> FirebaseRecipient? {
        guard let (token, topic) = registrations[registrationToken], let device = devices[token], let app = device.apps[topic] else { return nil }
        return FirebaseRecipient(device: device.record, app: topic, installation: app.firebase)
    }

    public func subscribe(registrationToken: String, project: String, topic: String, at date: Date, maximumTopics: Int) throws -> Bool {
        guard let (device, app) = registrations[registrationToken], let installation = devices[device]?.apps[app]?.firebase else {
            throw StoreError(.notFound, "no app has registration token \(registrationToken.prefix(40))")
        }
        try UpdateRefusal.checkProject(installation, subscribingUnder: project)
        let topics = topicsOfToken[registrationToken, default: [:]]
        guard topics[project]?.contains(topic) != true else { return false }
        let count = topics.values.reduce(0) { $0 + $1.count }
        guard count < maximumTopics else { throw UpdateRefusal.tooManyTopics(count) }
        topicsOfToken[registrationToken, default: [:]][project, default: []].insert(topic)
        return true
    }

    public func unsubscribe(registrationToken: String, project: String, topic: String) -> Bool {
        topicsOfToken[registrationToken]?[project]?.remove(topic) != nil
    }

    public func subscribers(project: String, toAnyOf topics: [String]) -> [(registrationToken: String, topics: Set<String>)] {
        let wanted = Set(topics)
        return topicsOfToken.compactMap { token, projects -> (registrationToken: String, topics: Set<String>)? in
            guard let subscribed = projects[project]?.intersection(wanted), !subscribed.isEmpty else { return nil }
            return (token, subscribed)
        }.sorted { $0.registrationToken < $1.registrationToken }
    }

    /// An app that went takes its registration token and the token's subscriptions with it.
    private func forgetRegistration(of app: AppRecord) {
        guard let registrationToken = app.firebase.registrationToken else { return }
        registrations[registrationToken] = nil
        if let id = FirebaseInstallation.installationID(of: registrationToken) { registrationsByInstallation[String(id)] = nil }
        topicsOfToken[registrationToken] = nil
    }

    /// Takes the device's next change number and records the change, forgetting old ones as the
    /// retention says.
    private func record(
        _ token: String, _ kind: ChangeRecord.Kind, topic: String, identifiers: [String] = [], event: DeviceEvent? = nil, summary: ScheduledSummary? = nil
    ) -> UInt64 {
        guard var device = devices.removeValue(forKey: token) else { return 0 }
        device.lastChange += 1
        device.journal.append(
            ChangeRecord(number: device.lastChange, kind: kind, topic: topic, identifiers: identifiers, event: event, summary: summary))
        if let oldestKept = retention.oldestKept(afterRecording: device.lastChange) {
            device.journal.removeAll { $0.number < oldestKept }
            device.oldestKept = oldestKept
        }
        devices[token] = device
        return device.lastChange
    }
}
