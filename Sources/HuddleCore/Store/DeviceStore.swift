public import Foundation

/// Devices, their apps and the person's settings, and the apps an FCM registration token or installation ID names. One of the protocols ``NotificationStore`` joins.
public protocol DeviceStore: Sendable {
    /// Creates a device, counting the devices in the same transaction, so that racing registrations
    /// cannot pass `maximumDevices` together.
    /// - Throws: ``StoreError`` `.conflict` when the token exists, `.full` when there are `maximumDevices`.
    func createDevice(_ device: DeviceRecord, maximumDevices: Int) async throws
    func device(token: String) async throws -> DeviceRecord?
    /// How many devices there are.
    func deviceCount() async throws -> Int
    /// The newest devices first, at most `limit` of them (the home page lists them for the admin).
    func devices(newestFirst limit: Int) async throws -> [DeviceRecord]
    /// Removes a device with its apps and notifications, remembering when (`date`, the server's clock), so that pushes
    /// to its token can be answered `Unregistered`; `false` when there was none.
    func deleteDevice(token: String, at date: Date) async throws -> Bool
    /// When a deleted device was removed; `nil` for a token never deleted (or registered again).
    func unregistrationDate(token: String) async throws -> Date?
    /// Installs or changes an app of a device in one transaction, decided against the app as stored then:
    /// `update` gets it (`nil` when the device does not have it) and gives the app to store. Two changes
    /// of one app at once (two localization files, settings and categories) both stay, whichever commits
    /// first; a new app past `maximumApps` is refused in the same transaction. An app the summary no longer
    /// holds (``DeviceSettings/holds(appSettings:)``) has its held notifications held no more, in it too.
    /// - Returns: the change, `.appSaved`.
    /// - Throws: what `update` throws, as it threw it (nothing is stored then); ``StoreError`` `.notFound`
    ///   for an unknown device, `.conflict` for a new app when the device has `maximumApps`.
    func updateApp(topic: String, device token: String, maximumApps: Int, _ update: AppUpdate) async throws -> DeviceChange
    func apps(device token: String) async throws -> [AppRecord]
    /// Removes an app and its notifications, when `precondition` (given the app as stored, in the same
    /// transaction) does not throw.
    /// - Returns: the change, `.appDeleted`; `nil` when the device had no such app.
    /// - Throws: what `precondition` throws, as it threw it (nothing is removed then).
    func deleteApp(topic: String, device token: String, precondition: AppPrecondition?) async throws -> DeviceChange?
    /// Changes the person's settings of a device in one transaction, decided against them as stored then: `update`
    /// gets them and gives the settings to store. Held notifications that no summary holds under the new settings
    /// (``DeviceSettings/holds(appSettings:)``) are held no more, in the same transaction.
    /// - Returns: the change, `.settings`; `nil` when the settings did not change (nothing is recorded then).
    /// - Throws: ``StoreError`` `.notFound` for an unknown device; what `update` throws, as it threw it.
    func updateDeviceSettings(device token: String, _ update: DeviceSettingsUpdate) async throws -> DeviceChange?
    /// The app an FCM registration token names, with its device; `nil` for a token no app has.
    func firebaseRecipient(registrationToken: String) async throws -> FirebaseRecipient?
    /// The registration token of the app a Firebase installation ID belongs to (the token's part before its `:`,
    /// ``FirebaseInstallation/installationID(of:)``), in one read; `nil` for an ID no app has. The token then names
    /// the app as any token does (``firebaseRecipient(registrationToken:)``, which a caller may have cached).
    func registrationToken(installationID: String) async throws -> String?
    /// The web app whose push subscription (current or ended) has endpoint ID `subscriptionID`, with its device; `nil`
    /// for an ID no app has.
    func webPushRecipient(subscriptionID: String) async throws -> WebPushRecipient?
}

extension DeviceStore {
    /// Creates a device, however many there are.
    public func createDevice(_ device: DeviceRecord) async throws {
        try await createDevice(device, maximumDevices: .max)
    }

    /// Removes an app and its notifications, whatever it holds.
    public func deleteApp(topic: String, device token: String) async throws -> DeviceChange? {
        try await deleteApp(topic: topic, device: token, precondition: nil)
    }

    /// Creates or replaces an app as it is given, however many the device has.
    public func saveApp(_ app: AppRecord, device token: String) async throws -> DeviceChange {
        try await updateApp(topic: app.topic, device: token, maximumApps: .max) { _ in app }
    }
}
