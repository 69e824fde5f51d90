public import Foundation
public import HuddleCore

/// What a message becomes on each kind of device: the notification the Firebase SDK posts on Android, and the APNs
/// push FCM makes of it for an iPhone. docs/fcm.md has each rule's source.
extension FCMMessage {
    /// On Android: the notification the SDK posts when the app is in the background, or `nil` for a data message
    /// (no title or body, literal or localized), which only the app's `onMessageReceived` gets.
    ///
    /// `android.notification`'s keys beat the message's `notification`; a literal title or body beats its `*_loc_key`
    /// (firebase-android-sdk's NotificationParams); `android.data` replaces `data`. The notification's identifier is
    /// its `tag`, so that a later one with the same tag replaces it; without a tag every message is a new one (the
    /// SDK posts those under a tag of its own, unique each time).
    public func androidNotification(messageID: String) -> NotificationRequest? {
        let overrides = android?.notification
        let title = Self.text(overrides?.title ?? notification?.title, key: overrides?.titleLocKey, arguments: overrides?.titleLocArgs ?? [])
        let body = Self.text(overrides?.body ?? notification?.body, key: overrides?.bodyLocKey, arguments: overrides?.bodyLocArgs ?? [])
        guard title != nil || body != nil else { return nil }
        let visibility: AndroidPresentation.Visibility =
            switch overrides?.visibility ?? .private {
            case .public: .public
            case .private: .private
            case .secret: .secret
            }
        let presentation = AndroidPresentation(
            channelID: overrides?.channelID, tag: overrides?.tag, visibility: visibility,
            count: overrides?.notificationCount.flatMap { $0 > 0 ? $0 : nil }, image: overrides?.image ?? notification?.image,
            icon: overrides?.icon, color: overrides?.color, sound: overrides?.sound ?? (overrides?.defaultSound == true ? "default" : nil),
            eventTime: overrides?.eventTime, sticky: overrides?.sticky ?? false)
        let content = NotificationContent(
            title: title, body: body, userInfo: JSONObject(androidData.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }),
            android: presentation)
        return NotificationRequest(identifier: overrides?.tag ?? messageID, content: content)
    }

    /// The data the Android app gets: `android.data` when present, else `data`.
    public var androidData: [String: String] { android?.data ?? data }

    private static func text(_ literal: String?, key: String?, arguments: [String]) -> LocalizableText? {
        if let literal, !literal.isEmpty { return .plain(literal) }
        if let key, !key.isEmpty { return .localized(key: key, arguments: arguments) }
        return nil
    }

    /// On an iPhone: the APNs payload FCM sends. `apns.payload` as given (its `aps.alert` beats the message's
    /// `notification`, which fills in what it lacks), `data` as custom keys beside `aps` (a key the payload has
    /// already keeps the payload's value).
    public var apnsPayload: JSONValue {
        var payload: JSONObject
        if case .object(let object)? = apns?.payload { payload = object } else { payload = JSONObject() }
        var aps: JSONObject
        if case .object(let object)? = payload["aps"] { aps = object } else { aps = JSONObject() }
        if let notification, notification.title != nil || notification.body != nil {
            switch aps["alert"] {
            case nil:
                var alert = JSONObject()
                alert["title"] = notification.title.map(JSONValue.string)
                alert["body"] = notification.body.map(JSONValue.string)
                aps["alert"] = .object(alert)
            case .object(var alert)?:
                if alert["title"] == nil { alert["title"] = notification.title.map(JSONValue.string) }
                if alert["body"] == nil { alert["body"] = notification.body.map(JSONValue.string) }
                aps["alert"] = .object(alert)
            default:
                break
            }
        }
        payload["aps"] = .object(aps)
        for (key, value) in data.sorted(by: { $0.key < $1.key }) where payload[key] == nil { payload[key] = .string(value) }
        return .object(payload)
    }

    /// The APNs headers FCM sends with it: `apns.headers` as given, with `apns-priority` 10 when not set (5 for a
    /// message without a notification, which Google requires of data messages to iPhones) and `apns-expiration`
    /// 30 days ahead when not set.
    public func apnsHeaders(now: Date) -> [String: String] {
        var headers = apns?.headers ?? [:]
        // The payload is merged once here (it copies the `apns` block and the notification).
        let hasAlert = apnsPayloadHasAlert
        if headers["apns-priority"] == nil { headers["apns-priority"] = hasAlert ? "10" : "5" }
        if headers["apns-expiration"] == nil { headers["apns-expiration"] = String(Int64(now.timeIntervalSince1970) + 30 * 86_400) }
        if headers["apns-push-type"] == nil { headers["apns-push-type"] = Self.pushType(hasAlert: hasAlert) }
        return headers
    }

    /// The `apns-push-type` FCM sends: the one `apns.headers` names, else `alert` for a push with an alert and
    /// `background` for one without. What the server delivers and the linter checks the `apns` block as.
    public var apnsPushType: String {
        apns?.headers["apns-push-type"] ?? Self.pushType(hasAlert: apnsPayloadHasAlert)
    }

    private static func pushType(hasAlert: Bool) -> String { hasAlert ? "alert" : "background" }

    private var apnsPayloadHasAlert: Bool {
        if case .object(let aps)? = apnsPayload["aps"], aps["alert"] != nil { return true }
        return false
    }

    /// A new message id, shaped as FCM's are (`0:1500415314455276%31bd1c9631bd1c96`).
    public static func newMessageID(now: Date) -> String {
        var generator = SystemRandomNumberGenerator()
        let micros = UInt64(max(0, now.timeIntervalSince1970 * 1_000_000))
        let suffix = String(generator.next() as UInt64, radix: 16)
        return "0:\(micros)%" + String(repeating: "0", count: 16 - suffix.count) + suffix
    }
}
