public import Foundation

/// A web app's push subscription on a device (the Push API's `PushSubscription`): the endpoint's ID, the push service
/// it imitates, the application server's key it was made with, and the browser's own keys, which Huddle keeps to decrypt
/// what is sent (a real push service never has them).
public struct WebPushSubscription: Sendable, Hashable {
    /// The opaque last part of the endpoint's path.
    public var id: String
    /// The push service's name (`apple`, `mozilla`, `fcm`), as HuddleWebPush's `WebPushService` names it.
    public var service: String
    /// The `applicationServerKey` (base64url, 65 bytes uncompressed): VAPID's `k` must be it.
    public var applicationServerKey: String
    /// The browser's P-256 private key (base64url, 32 bytes); its public half is the subscription's `p256dh`.
    public var privateKey: String
    /// The 16-byte `auth` secret (base64url).
    public var authSecret: String
    public var createdAt: Date
    /// When it ended (unsubscribed, or revoked by the browser): pushes are answered 410 after.
    public var endedAt: Date?
    /// Why it ended, as the device's page says it.
    public var endReason: String?
    /// Pushes handed to the web app's service worker that showed no notification (Safari revokes at the third).
    public var silentPushes: Int
    /// Whether the web app's service worker shows a notification for each push it gets, as Safari and Chrome require
    /// (`userVisibleOnly`); a test sets it false to see what the browser does to a web app that shows nothing.
    public var serviceWorkerShowsNotifications: Bool

    public init(
        id: String, service: String, applicationServerKey: String, privateKey: String, authSecret: String, createdAt: Date, endedAt: Date? = nil,
        endReason: String? = nil, silentPushes: Int = 0, serviceWorkerShowsNotifications: Bool = true
    ) {
        self.id = id
        self.service = service
        self.applicationServerKey = applicationServerKey
        self.privateKey = privateKey
        self.authSecret = authSecret
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.silentPushes = silentPushes
        self.serviceWorkerShowsNotifications = serviceWorkerShowsNotifications
    }

    public var isActive: Bool { endedAt == nil }

    /// The web app an origin is on a device: its origin is the app's topic, so one origin has one app (and one
    /// subscription) per device, as a browser keeps one per service worker registration.
    public static func isOrigin(_ text: String) -> Bool {
        guard text.utf8.count <= 255, let scheme = ["https://", "http://"].first(where: { text.hasPrefix($0) }) else { return false }
        let host = text.dropFirst(scheme.count)
        return !host.isEmpty && host.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x2E
                || byte == 0x3A || byte == 0x5B || byte == 0x5D
        }
    }

    /// A new endpoint ID: 32 random bytes, base64url (43 characters), never reused.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode(Data((0..<32).map { _ in generator.next() as UInt8 }))
    }
}
