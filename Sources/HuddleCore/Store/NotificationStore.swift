public import Foundation

/// Where a server keeps devices, their apps and their notifications, durably.
///
/// Every backend (the in-memory actor, SQLite, PostgreSQL) passes one conformance suite
/// (`HuddleTestSupport.StoreConformance`). A write returns only once it is committed: the server answers
/// a push with 200 after ``insert(_:device:)`` returns.
public protocol NotificationStore: Sendable {
    // MARK: Devices
    /// - Throws: ``StoreError`` `.conflict` when the token exists.
    func createDevice(_ device: DeviceRecord) async throws
    func device(token: String) async throws -> DeviceRecord?
    /// Removes a device with its apps and notifications, remembering when, so that pushes to its token
    /// can be answered `Unregistered`; `false` when there was none.
    func deleteDevice(token: String) async throws -> Bool
    /// When a deleted device was removed; `nil` for a token never deleted (or registered again).
    func unregistrationDate(token: String) async throws -> Date?

    // MARK: Apps
    /// Creates or replaces an app of a device.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device.
    func saveApp(_ app: AppRecord, device token: String) async throws
    func apps(device token: String) async throws -> [AppRecord]
    /// Removes an app and its notifications; `false` when there was none.
    func deleteApp(topic: String, device token: String) async throws -> Bool

    // MARK: Notifications
    /// Stores a delivered notification, replacing one with the same app and identifier.
    /// - Throws: ``StoreError`` `.notFound` for an unknown device or app.
    func insert(_ notification: DeliveredNotification, device token: String) async throws
    /// Removes notifications of one app by identifier; unknown identifiers are ignored.
    func deleteNotifications(app: String, identifiers: [String], device token: String) async throws
    /// Every notification of a device, oldest first (by delivery sequence). Read once, when a server first
    /// needs a device's center; afterwards the center is kept up to date in memory.
    func notifications(device token: String) async throws -> [DeliveredNotification]

    // MARK: Signing keys
    /// Creates or replaces a signing key.
    func saveSigningKey(_ key: SigningKeyRecord) async throws
    func signingKey(id: String) async throws -> SigningKeyRecord?
    func signingKeys() async throws -> [SigningKeyRecord]
    func deleteSigningKey(id: String) async throws -> Bool
}

/// A store operation that failed for a reason callers handle.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        case notFound
        case conflict
        case corrupt
    }

    public var code: Code
    public var description: String

    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}
