public import Foundation

/// A ``NotificationStore`` that keeps everything in memory: for tests, previews and `huddle serve
/// --database memory`. Nothing survives the process.
public actor InMemoryNotificationStore: NotificationStore {
    private struct Device {
        var record: DeviceRecord
        var apps: [String: AppRecord] = [:]
        var notifications: [String: [String: DeliveredNotification]] = [:]
    }

    private var devices: [String: Device] = [:]
    private var unregistered: [String: Date] = [:]
    private var keys: [String: SigningKeyRecord] = [:]

    public init() {}

    public func createDevice(_ device: DeviceRecord) throws {
        guard devices[device.token] == nil else { throw StoreError(.conflict, "device \(device.token) exists") }
        devices[device.token] = Device(record: device)
        unregistered[device.token] = nil
    }

    public func device(token: String) -> DeviceRecord? {
        devices[token]?.record
    }

    public func deleteDevice(token: String) -> Bool {
        guard devices.removeValue(forKey: token) != nil else { return false }
        unregistered[token] = Date()
        return true
    }

    public func unregistrationDate(token: String) -> Date? {
        unregistered[token]
    }

    public func saveApp(_ app: AppRecord, device token: String) throws {
        guard devices[token] != nil else { throw StoreError(.notFound, "unknown device \(token)") }
        devices[token]?.apps[app.topic] = app
    }

    public func apps(device token: String) -> [AppRecord] {
        (devices[token]?.apps.values).map { $0.sorted { $0.topic < $1.topic } } ?? []
    }

    public func deleteApp(topic: String, device token: String) -> Bool {
        devices[token]?.notifications[topic] = nil
        return devices[token]?.apps.removeValue(forKey: topic) != nil
    }

    public func insert(_ notification: DeliveredNotification, device token: String) throws {
        guard let device = devices[token] else { throw StoreError(.notFound, "unknown device \(token)") }
        guard device.apps[notification.app] != nil else {
            throw StoreError(.notFound, "device \(token) has no app \(notification.app)")
        }
        devices[token]?.notifications[notification.app, default: [:]][notification.identifier] = notification
    }

    public func deleteNotifications(app: String, identifiers: [String], device token: String) {
        for identifier in identifiers {
            devices[token]?.notifications[app]?[identifier] = nil
        }
    }

    public func notifications(device token: String) -> [DeliveredNotification] {
        guard let device = devices[token] else { return [] }
        return device.notifications.values.flatMap(\.values).sorted { $0.stamp.sequence < $1.stamp.sequence }
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
}
