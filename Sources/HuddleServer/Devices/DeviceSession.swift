import Foundation
import HuddleCore
import HuddleLocalization

/// One device's center in memory, kept in step with the store: every change is committed first, then
/// applied to the live center, one at a time.
final class DeviceSession: Sendable {
    let token: String
    let live: LiveCenter
    private let store: any NotificationStore
    private let writes = SerialQueue()

    init(token: String, live: LiveCenter, store: any NotificationStore) {
        self.token = token
        self.live = live
        self.store = store
    }

    /// Reads a device's apps and notifications from the store into a new live center.
    static func load(token: String, store: any NotificationStore) async throws -> DeviceSession? {
        guard try await store.device(token: token) != nil else { return nil }
        var center = Center()
        for app in try await store.apps(device: token) {
            try center.register(try registration(for: app))
            try center.setCategories(app.categories, for: app.topic)
        }
        for notification in try await store.notifications(device: token) {
            try center.deliver(notification)
        }
        return DeviceSession(token: token, live: LiveCenter(center: center), store: store)
    }

    /// The center's registration for a stored app, its uploaded files read into a localization bundle.
    static func registration(for app: AppRecord) throws -> AppRegistration {
        let files = app.localizationFiles.map { LocalizationFile(path: $0.key, data: $0.value) }
        let bundle = try LocalizationLoader(developmentLanguage: app.developmentLanguage).load(files: files).bundle
        return AppRegistration(bundleIdentifier: app.topic, settings: app.settings, localizations: bundle)
    }

    /// Stores and delivers a notification.
    /// - Returns: the delivery, or `nil` for content with nothing to show (which is not stored).
    func deliver(_ request: NotificationRequest, app: String, at date: Date) async throws -> Center.Delivery? {
        try await writes.run { [live, store, token] in
            guard request.content.isVisible else { return nil }
            let stamp = await live.makeStamp(at: date)
            let notification = DeliveredNotification(app: app, request: request, stamp: stamp)
            try await store.insert(notification, device: token)
            return try await live.deliver(notification)
        }
    }

    /// Removes notifications of an app by identifier.
    func remove(app: String, identifiers: [String]) async throws -> [Center.Removal] {
        try await writes.run { [live, store, token] in
            try await store.deleteNotifications(app: app, identifiers: identifiers, device: token)
            return try await live.removeNotifications(withIdentifiers: identifiers, app: app)
        }
    }

    /// Removes a whole group.
    func remove(group: GroupID) async throws -> [Center.Removal] {
        try await writes.run { [live, store, token] in
            let identifiers = await live.center.notifications(in: group).map(\.identifier)
            try await store.deleteNotifications(app: group.app, identifiers: identifiers, device: token)
            return try await live.removeNotifications(withIdentifiers: identifiers, app: group.app)
        }
    }

    /// Removes every notification of an app.
    func removeAll(app: String) async throws -> [Center.Removal] {
        try await writes.run { [live, store, token] in
            let identifiers = await live.center.deliveredNotifications(app: app).map(\.identifier)
            try await store.deleteNotifications(app: app, identifiers: identifiers, device: token)
            return try await live.removeNotifications(withIdentifiers: identifiers, app: app)
        }
    }

    /// Creates or replaces an app: its settings, categories and localization files.
    /// - Throws: ``CenterError`` for invalid categories (nothing is stored then), ``CatalogError`` for a bad
    ///   localization file.
    func save(_ app: AppRecord) async throws {
        try await writes.run { [live, store, token] in
            let registration = try Self.registration(for: app)
            // Validate the categories before anything is stored.
            var check = Center()
            try check.register(registration)
            try check.setCategories(app.categories, for: app.topic)
            try await store.saveApp(app, device: token)
            try await live.register(registration)
            try await live.setCategories(app.categories, for: app.topic)
        }
    }
}
