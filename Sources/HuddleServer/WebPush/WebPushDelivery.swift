import Foundation
import HuddleCore
import NIOCore
import HuddleWebPush

/// What the device does with a web push it was sent, being the browser: it decrypts it with the subscription's keys,
/// then, by the device's kind, shows a Declarative Web Push (an iPhone's Home Screen web app), or hands the push to the
/// web app's service worker, and applies what the browser does to a web app whose pushes show nothing.
struct WebPushDelivery: Sendable {
    let centers: DeviceCenters
    let maximumApps: Int
    let clock: @Sendable () -> Date

    /// The pushes that show nothing after which Safari revokes a web app's subscription (WebKit's
    /// `maxSilentPushCount`).
    static let silentPushesRevoked = 3
    /// What Chrome shows for a push whose service worker showed no notification (its generic notification's body).
    static let chromeUpdatedInBackground = "This site has been updated in the background."
    /// The channel Chrome posts a site's notifications to.
    static let chromeSiteChannel = AndroidChannel(id: "sites", name: "Sites", importance: .high)

    func deliver(_ push: WebPushEndpoint.CheckedPush, messageID: String, details: inout JSONObject) async throws -> StoredPushOutcome {
        let recipient = push.recipient
        guard let session = try await centers.session(for: recipient.device.token) else { throw DeliveryRefusal.deviceGone }
        let now = clock()
        let priority = push.headers.urgency == .high ? 10 : 5
        func stored(action: String?, request: NotificationRequest? = nil, payload: JSONValue) -> StoredPush {
            StoredPush(
                app: recipient.app, pushType: "webpush", messageID: messageID, priority: priority, date: now, deviceAction: action,
                request: request ?? NotificationRequest(identifier: messageID, content: NotificationContent()), payload: { payload })
        }
        let plaintext: Data
        do {
            plaintext = try Self.decrypt(push)
        } catch {
            // Accepted: the service cannot see inside. The browser can, and drops it.
            details["decryptionFailure"] = .string(error.description)
            return try await session.store(stored(
                action: "accepted (201), but the browser could not decrypt it, so nothing reached the web app: \(error.description)", payload: .null))
        }
        let payload = Self.shown(plaintext)
        details["payload"] = payload
        let reading = DeclarativePushMessage.read(plaintext)
        switch (recipient.device.kind.webPushArrival, reading) {
        case (.homeScreenWebApp, .declarative(let message)):
            details["declarative"] = "shown as declared"
            return try await session.store(stored(action: nil, request: message.notificationRequest(messageID: messageID), payload: payload))
        case (.homeScreenWebApp, .invalid(let reason)):
            details["declarative"] = .string("invalid, so Safari gave it to the service worker: \(reason)")
            let action = try await handToServiceWorker(push, session: session, declarativeProblem: reason)
            return try await session.store(stored(action: action, payload: payload))
        case (.homeScreenWebApp, .other), (.chrome, _):
            if case .declarative = reading { details["declarative"] = "Chrome shows no Declarative Web Push: the service worker got it" }
            let action = try await handToServiceWorker(push, session: session, declarativeProblem: nil)
            if recipient.device.kind.webPushArrival == .chrome, !recipient.subscription.serviceWorkerShowsNotifications {
                // Chrome keeps its promise to the person for the site: a notification of its own.
                let request = NotificationRequest(
                    identifier: messageID,
                    content: NotificationContent(
                        title: .plain(Self.host(of: recipient.subscription.origin)), body: .plain(Self.chromeUpdatedInBackground),
                        android: AndroidPresentation(channelID: Self.chromeSiteChannel.id)))
                _ = try await session.store(stored(action: nil, request: request, payload: payload))
            }
            return try await session.store(stored(action: action, payload: payload))
        }
    }

    /// What the web app's service worker did with a push, by what the subscription says it does; when it shows
    /// nothing, Safari counts it, and revokes the subscription at the third (in the app's transaction, so that pushes
    /// at once are each counted).
    private func handToServiceWorker(_ push: WebPushEndpoint.CheckedPush, session: DeviceSession, declarativeProblem: String?) async throws -> String {
        let prefix = declarativeProblem.map { "Safari would not show it as declared (\($0)); " } ?? ""
        guard !push.recipient.subscription.serviceWorkerShowsNotifications else {
            return prefix + "the web app's service worker got it in its push event and shows its own notification"
        }
        guard push.recipient.device.kind.webPushArrival == .homeScreenWebApp else {
            return prefix + "the site's service worker showed no notification, so Chrome showed \"\(Self.chromeUpdatedInBackground)\""
        }
        let now = clock()
        let app = try await session.updateApp(topic: push.recipient.app, maximumApps: maximumApps) { app in
            guard var app, var subscription = app.webPush, subscription.id == push.recipient.subscription.id else { throw DeliveryRefusal.unknownApp }
            // Revoked or unsubscribed since the push was checked: decided here, in the transaction.
            guard subscription.isActive else { throw WebPushRefusal.subscriptionGone }
            subscription.silentPushes += 1
            if subscription.silentPushes >= Self.silentPushesRevoked, subscription.isActive {
                subscription.endedAt = now
                subscription.endReason = "Safari revoked it: \(Self.silentPushesRevoked) pushes showed no notification"
                subscription.pending = []
            }
            app.webPush = subscription
            return app
        }
        let count = app.webPush?.silentPushes ?? 0
        if count >= Self.silentPushesRevoked {
            return prefix + "the web app's service worker showed no notification (\(count) such pushes): Safari revoked its push subscription, and pushes to it are answered 410"
        }
        return prefix + "the web app's service worker showed no notification (\(count) of \(Self.silentPushesRevoked): Safari revokes the subscription at the \(Self.silentPushesRevoked)rd)"
    }

    static func decrypt(_ push: WebPushEndpoint.CheckedPush) throws(DecryptionFailure) -> Data {
        let subscription = push.recipient.subscription
        guard let privateKey = Base64URL.decode(Substring(subscription.privateKey)), let auth = Base64URL.decode(Substring(subscription.authSecret)),
            let keys = SubscriptionKeys(privateKeyBytes: privateKey, authSecret: auth)
        else { throw DecryptionFailure.storedKeysUnreadable }
        let body = Data(push.body.readableBytesView)
        switch push.headers.coding {
        case .none: return Data()
        case .aes128gcm: return try MessageEncryption.decrypt(aes128gcm: body, keys: keys)
        case .aesgcm(let salt, let senderKey): return try MessageEncryption.decrypt(aesgcm: body, salt: salt, senderKey: senderKey, keys: keys)
        }
    }

    /// The plaintext as the inspector and the device's events show it: JSON as JSON, else text.
    static func shown(_ plaintext: Data) -> JSONValue {
        if let json = try? JSONParser.parse(plaintext) { return json }
        return .string(String(decoding: plaintext, as: UTF8.self))
    }

    static func host(of origin: String) -> String {
        String(origin.split(separator: "/").last ?? Substring(origin))
    }
}

extension DecryptionFailure {
    static let storedKeysUnreadable = DecryptionFailure("the subscription's stored keys cannot be read")
}
