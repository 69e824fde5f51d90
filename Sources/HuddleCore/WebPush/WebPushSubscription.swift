public import Foundation

/// A web app's push subscription on a device (the Push API's `PushSubscription`): the endpoint's ID, the push service
/// it imitates, the application server's key it was made with, and the browser's own keys, which Huddle keeps to decrypt
/// what is sent (a real push service never has them).
public struct WebPushSubscription: Sendable, Hashable {
    /// The opaque last part of the endpoint's path.
    public var id: String
    /// The web app's origin (`https://shop.example`), as the page that subscribed had it.
    public var origin: String
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
    /// Whether the browser is reachable: while it is not, the push service keeps what it accepts (``pending``).
    public var online: Bool
    /// What the push service keeps for the browser while it is offline, oldest first: RFC 8030's store and forward.
    public var pending: [PendingWebPush]

    /// The most messages kept for an offline browser; a later one pushes out the oldest (services keep a limited
    /// number, Apple's page says, without the number).
    public static let maximumPending = 50

    public init(
        id: String, origin: String, service: String, applicationServerKey: String, privateKey: String, authSecret: String, createdAt: Date, endedAt: Date? = nil,
        endReason: String? = nil, silentPushes: Int = 0, serviceWorkerShowsNotifications: Bool = true, online: Bool = true,
        pending: [PendingWebPush] = []
    ) {
        self.online = online
        self.pending = pending
        self.id = id
        self.origin = origin
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

    /// The topic of the app a web app is on a device, from its origin: `web.` and the host, with a port that is not
    /// the scheme's default after `.P` (`https://shop.example:8443` is `web.shop.example.P8443`: an uppercase letter no
    /// lowercased host has, so no host and port read as another), and `web-http.` for a cleartext origin (`localhost`
    /// while developing). A topic holds no `/` or `#`, which a group's ID separates with. `nil` for text that is not an
    /// origin: a scheme `https` or `http`, a host of letters, digits, `-` and `.`, an optional port, nothing after.
    public static func appTopic(origin text: String) -> String? {
        guard let origin = parsedOrigin(text) else { return nil }
        return (origin.secure ? "web." : "web-http.") + origin.host + (origin.port.map { ".P\($0)" } ?? "")
    }

    /// An origin as a page's `self.origin` serializes it: the scheme and host lowercased, the port as a number and left
    /// out when it is the scheme's default (`https://Shop.example:0443` is `https://shop.example`); text that is no
    /// origin, lowercased.
    public static func canonicalOrigin(_ text: String) -> String {
        guard let origin = parsedOrigin(text) else { return text.lowercased() }
        return (origin.secure ? "https://" : "http://") + origin.host + (origin.port.map { ":\($0)" } ?? "")
    }

    /// An origin's parts: the host lowercased, the port `nil` when absent or the scheme's default.
    private static func parsedOrigin(_ text: String) -> (secure: Bool, host: String, port: Int?)? {
        guard text.utf8.count <= 253 + 14 else { return nil }
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else { return nil }
        let authority = lowered.dropFirst(scheme.count)
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let host = parts.first, !host.isEmpty, host.first != ".", host.last != ".", host.first != "-",
            host.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x2E }),
            !host.contains("..")
        else { return nil }
        let secure = scheme == "https://"
        guard parts.count == 2 else { return (secure, String(host), nil) }
        guard !parts[1].isEmpty, parts[1].utf8.count <= 5, parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = Int(parts[1]),
            (1...65535).contains(port)
        else { return nil }
        return (secure, String(host), port == (secure ? 443 : 80) ? nil : port)
    }

    /// A new endpoint ID: 32 random bytes, base64url (43 characters), never reused.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode(Data((0..<32).map { _ in generator.next() as UInt8 }))
    }
}

/// A push the service accepted for a browser that was offline, kept as it came (still encrypted) until the browser is
/// back or its TTL runs out.
public struct PendingWebPush: Sendable, Hashable {
    public var messageID: String
    public var receivedAt: Date
    public var ttl: Int
    public var urgency: String?
    public var topic: String?
    /// `aes128gcm`, `aesgcm` or `none`, with the `aesgcm` salt and sender key (base64url).
    public var encoding: String
    public var salt: String?
    public var senderKey: String?
    /// The body as received, base64url.
    public var body: String

    public init(
        messageID: String, receivedAt: Date, ttl: Int, urgency: String?, topic: String?, encoding: String, salt: String? = nil,
        senderKey: String? = nil, body: String
    ) {
        self.messageID = messageID
        self.receivedAt = receivedAt
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.encoding = encoding
        self.salt = salt
        self.senderKey = senderKey
        self.body = body
    }

    /// Whether its TTL ran out before `date`.
    public func hasExpired(at date: Date) -> Bool {
        date.timeIntervalSince(receivedAt) >= Double(ttl)
    }
}
