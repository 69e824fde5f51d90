public import Foundation
public import HuddleCore

/// What Expo sends APNs and FCM for a message (docs/expo.md, "What reaches the device", from Expo's page on receiving
/// notifications): on an iPhone an APNs push whose `aps` carries the alert and whose `body` carries `data`; on Android
/// an FCM data message that expo-notifications turns into the notification.
extension ExpoMessage {
    /// The APNs payload: `aps` (alert, badge, sound, category, mutable-content, content-available, interruption-level)
    /// beside `body` (the message's `data`), `experienceId` and `scopeKey` (the project).
    public func apnsPayload(project: String) -> JSONValue {
        var aps = JSONObject()
        if hasAlert {
            var alert = JSONObject()
            alert["title"] = title.map(JSONValue.string)
            alert["subtitle"] = subtitle.map(JSONValue.string)
            alert["body"] = body.map(JSONValue.string)
            aps["alert"] = .object(alert)
        }
        if let badge { aps["badge"] = .integer(Int64(badge)) }
        switch sound {
        case .named(let name)?:
            aps["sound"] = .string(name)
        case .critical(let name, let volume, let isCritical)?:
            var object = JSONObject([("critical", .integer(isCritical ? 1 : 0)), ("name", .string(name ?? "default"))])
            if let volume { object["volume"] = .double(volume) }
            aps["sound"] = .object(object)
        case nil:
            break
        }
        if let categoryID { aps["category"] = .string(categoryID) }
        if mutableContent { aps["mutable-content"] = .integer(1) }
        if contentAvailable { aps["content-available"] = .integer(1) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel.apnsName) }
        return .object(JSONObject([
            ("aps", .object(aps)), ("body", .object(data ?? JSONObject())), ("experienceId", .string(project)), ("scopeKey", .string(project)),
        ]))
    }

    /// The APNs headers: the push type (`background` for a message with nothing to show), the priority (`high` and
    /// `default` 10 on iOS, `normal` 5; a background push always 5, as APNs requires), `apns-expiration` from `ttl`,
    /// else `expiration`, and `apns-collapse-id`.
    public func apnsHeaders(now: Date) -> [String: String] {
        var headers = ["apns-push-type": apnsPushType]
        headers["apns-priority"] = apnsPushType == "background" || priority == .normal ? "5" : "10"
        if let expiresAt = expiresAt(now: now) { headers["apns-expiration"] = String(expiresAt) }
        if let collapseID { headers["apns-collapse-id"] = collapseID }
        return headers
    }

    /// `alert` for a message that shows, sounds or badges; `background` for one of data alone.
    public var apnsPushType: String {
        hasAlert || badge != nil || sound != nil ? "alert" : "background"
    }

    /// When the message expires, in UNIX seconds: `ttl` from now (0 meaning "now or never", as APNs reads 0), else
    /// `expiration`, else never here (Expo's default of a month is the providers').
    public func expiresAt(now: Date) -> Int64? {
        if let ttl { return ttl == 0 ? 0 : Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(ttl) }
        return expiration
    }

    /// The data of the FCM message Expo sends to Android: `title`, `message` (the body), `body` (the message's `data`
    /// as JSON text) and the fields expo-notifications reads to present it.
    public func fcmData(project: String) -> [String: String] {
        var fields: [String: String] = ["experienceId": project, "scopeKey": project]
        fields["title"] = title
        fields["message"] = body
        fields["subtitle"] = subtitle
        fields["body"] = JSONValue.object(data ?? JSONObject()).jsonText()
        fields["channelId"] = channelID
        fields["categoryId"] = categoryID
        fields["icon"] = icon
        fields["tag"] = tag
        fields["badge"] = badge.map(String.init)
        if case .named(let name)? = sound { fields["sound"] = name }
        if let image { fields["richContent"] = JSONValue.object(JSONObject([("image", .string(image))])).jsonText() }
        return fields
    }

    /// Whether FCM carries it at high priority: `high` only (Android's default is normal).
    public var isHighPriorityOnAndroid: Bool { priority == .high }

    /// The notification Android shows for the FCM message, which carries a notification as well as data (Expo's page on
    /// receiving notifications): the Firebase SDK posts it while the app is in the background, on the channel asked for
    /// if the app created it and else on the manifest's default or Firebase's fallback, as every FCM notification
    /// (docs/expo.md, "Channels"). Its identifier is the `tag`, else the message's, as expo-notifications takes it.
    /// `nil` for a message with nothing to show: the app's background task gets its data.
    public func androidRequest(messageID: String) -> NotificationRequest? {
        guard title != nil || body != nil else { return nil }
        let presentation = AndroidPresentation(
            channelID: channelID, tag: tag, visibility: .private, count: badge.flatMap { $0 > 0 ? $0 : nil }, image: image, icon: icon,
            sound: { if case .named(let name)? = sound { name } else { nil } }())
        let content = NotificationContent(
            title: title.map(LocalizableText.plain), body: body.map(LocalizableText.plain), categoryIdentifier: categoryID ?? "",
            userInfo: data ?? JSONObject(), android: presentation)
        return NotificationRequest(identifier: tag ?? messageID, content: content)
    }
}
