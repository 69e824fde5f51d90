import Foundation

/// A ``NotificationStore`` that keeps everything in memory: for tests, previews and `huddle serve
/// --database memory`. Nothing survives the process.
public actor InMemoryNotificationStore: NotificationStore {
    struct Device {
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
        var settings = DeviceSettings.newDevice
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

    var devices: [String: Device] = [:]

    var unregistered: [String: Date] = [:]
    /// Receipts by id (``DeliveryReceipt``).
    var receipts: [String: DeliveryReceipt] = [:]

    var keys: [String: SigningKeyRecord] = [:]

    var broadcastChannels: [String: BroadcastChannel] = [:]

    var serviceAccountKeys: [String: ServiceAccountRecord] = [:]

    /// Each FCM registration token's device and app.
    var registrations: [String: (device: String, app: String)] = [:]

    /// Each web push subscription's device and app, by its endpoint ID.
    var webPushSubscriptions: [String: (device: String, app: String)] = [:]

    /// Each registration token by its Firebase installation ID.
    var registrationsByInstallation: [String: String] = [:]

    /// Each registration token's topics, by project.
    var topicsOfToken: [String: [String: Set<String>]] = [:]

    let retention: ChangeRetention

    public init(retention: ChangeRetention = ChangeRetention()) {
        self.retention = retention
    }

    /// Takes the device's next change number and records the change, forgetting old ones as the
    /// retention says.
    func record(
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
