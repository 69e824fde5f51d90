import Crypto
public import Foundation
import HuddleAPNs
public import HuddleCore

/// `huddle serve --demo`: a device whose apps replay the session's stories (Messages, Mail, Calendar,
/// Podcasts, News, from the bundled `wwdc.json`: `Examples/wwdc.json` with the apps' `.stringsdict`
/// plurals in `Demo/Localizations`, so that a locked demo reads "1 email" and speaks Russian, German and
/// French too), so that a newcomer sees a full center at once.
public enum DemoDevice {
    /// The demo device's token: the same on every start, so a bookmark keeps working.
    public static let token = Array(SHA256.hash(data: Data("huddle demo device".utf8))).lowercaseHex

    /// How much longer ago the demo's notifications seem than the stories have them: their events are a
    /// second apart, which would read "now" on every card.
    static let timeStretch = 60.0

    /// Replaces the demo device with a fresh one holding the stories' final center, its newest notification
    /// delivered `now` and the others a minute before for each second before in the stories.
    /// - Returns: the device's token and its new secret.
    public static func install(in store: some NotificationStore, now: Date) async throws -> (token: String, secret: String) {
        guard let url = Bundle.module.url(forResource: "wwdc", withExtension: "json", subdirectory: "Demo") else {
            throw StoreError(.notFound, "the demo scenario is missing from this build")
        }
        let scenario = try Scenario.load(contentsOf: url)
        let center = try scenario.play(relativeTo: url).center
        _ = try await store.deleteDevice(token: token, at: now)
        let secret = Secrets.randomHex(bytes: 32)
        try await store.createDevice(
            DeviceRecord(token: token, secretHash: Secrets.hash(secret), name: "Demo iPhone", createdAt: now))
        for record in try scenario.appRecords(relativeTo: url) {
            _ = try await store.saveApp(record, device: token)
        }
        let notifications = center.registeredApps.flatMap { center.deliveredNotifications(app: $0) }.sorted { $0.stamp < $1.stamp }
        let newest = notifications.last?.date ?? now
        for notification in notifications {
            let date = now.addingTimeInterval(notification.date.timeIntervalSince(newest) * timeStretch)
            _ = try await store.deliver(notification.request, app: notification.app, at: date, device: token)
        }
        return (token, secret)
    }
}
