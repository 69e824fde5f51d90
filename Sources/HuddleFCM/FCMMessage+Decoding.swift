import Foundation
public import HuddleCore

/// `projects.messages.send`'s body: `{"validate_only": …, "message": {…}}`.
public struct FCMSendRequest: Sendable, Hashable {
    public var validateOnly: Bool
    public var message: FCMMessage

    /// The largest body read: the message's limit is 4 KB of payload, and the rest (headers, the APNs payload,
    /// web push) a few more.
    public static let maximumBodySize = 64 * 1024

    /// Reads and checks a request body, as FCM refuses it: the front end's errors (a field it does not know, a value
    /// of the wrong type) without an FCM error code, FCM's own (a missing target, a reserved data key, a bad TTL, a
    /// message too big) as `INVALID_ARGUMENT`, each naming the field (`message.android.ttl`).
    public init(json: JSONValue) throws(FCMError) {
        let request = try ProtoFields(json, path: "", fields: ["validate_only", "message"])
        validateOnly = try request.bool("validate_only") ?? false
        guard let message = request.raw("message") else { throw FCMError.invalid(field: "message", "Message must be set.") }
        self.message = try FCMMessage(json: message)
    }
}

extension FCMMessage {
    static let reservedDataWords: Set<String> = ["from", "message_type"]
    static let reservedDataPrefixes = ["google.", "gcm.notification."]

    /// Reads `message`; ``FCMSendRequest`` explains the errors.
    public init(json: JSONValue) throws(FCMError) {
        let message = try ProtoFields(json, path: "message", fields: Self.messageFields)
        let targets = ["token", "fid", "topic", "condition"].filter(message.has)
        guard let named = targets.first else { throw FCMError.invalid(field: "message", "Recipient of the message is not set.") }
        guard targets.count == 1 else {
            throw FCMError.malformed(
                field: "message", "Invalid value at 'message' (oneof), oneof field 'target' is already set. Cannot set '\(targets[1])'")
        }
        switch named {
        case "topic":
            let topic = try message.string("topic") ?? ""
            guard TopicCondition.isValidTopicName(topic) else {
                throw FCMError.invalid(field: "message.topic", "Invalid topic name \"\(topic.prefix(64))\": it matches [a-zA-Z0-9-_.~%]+, without /topics/")
            }
            target = .topic(topic)
        case "condition":
            target = .condition(try TopicCondition(try message.string("condition") ?? ""))
        case "fid":
            // Any text: FCM answers an installation ID it does not know, however it looks, UNREGISTERED (firebase-admin's
            // tests of `fid="not-a-fid"` against FCM; docs/fcm.md).
            let id = try message.string("fid") ?? ""
            guard !id.isEmpty, id.utf8.count <= 4_096 else {
                throw FCMError.invalid(field: "message.fid", "Invalid Firebase installation ID: 1 to 4096 bytes")
            }
            target = .installation(id)
        default:
            let token = try message.string("token") ?? ""
            // As Google's error-code page shows it: the FCM error code in the details, and no field violation.
            guard Self.isWellFormedToken(token) else { throw FCMError(.invalidArgument, "The registration token is not a valid FCM registration token") }
            target = .token(token)
        }
        data = try message.stringMap("data", maximumEntries: 1_000) ?? [:]
        try Self.checkDataKeys(data, field: "message.data")
        notification = try message.object("notification", fields: ["title", "body", "image"]).map { fields throws(FCMError) in
            Notification(title: try fields.string("title"), body: try fields.string("body"), image: try fields.string("image"))
        }
        if message.has("android"), message.has("android_v2") {
            throw FCMError.invalid(field: "message.android_v2", "android and android_v2 cannot both be set")
        }
        android = try message.object("android", fields: Self.androidFields).map(Self.androidConfig)
        apns = try message.object("apns", fields: ["headers", "payload", "fcm_options", "live_activity_token"]).map { fields throws(FCMError) in
            var config = APNsConfig(headers: try fields.stringMap("headers", maximumEntries: 64) ?? [:])
            if let payload = fields.raw("payload") {
                guard case .object = payload else { throw fields.wrongType("payload", "TYPE_MESSAGE", payload) }
                config.payload = payload
            }
            if let token = try fields.string("live_activity_token") {
                // ActivityKit's tokens are hexadecimal, a few hundred digits at most.
                guard !token.isEmpty, token.utf8.count <= 1_024, token.utf8.allSatisfy({ $0 < 0x80 && Character(UnicodeScalar($0)).isHexDigit }) else {
                    throw FCMError.invalid(field: "message.apns.live_activity_token", "Invalid Live Activity token: 1 to 1024 hexadecimal digits")
                }
                config.liveActivityToken = token
            }
            return config
        }
        if let webpush = try message.object("webpush", fields: ["headers", "data", "notification", "fcm_options"]) {
            _ = try webpush.stringMap("headers", maximumEntries: 64)
            if let webData = try webpush.stringMap("data", maximumEntries: 1_000) { try Self.checkDataKeys(webData, field: "message.webpush.data") }
            self.webpush = json["webpush"]
        }
        if let options = try message.object("fcm_options", fields: ["analytics_label"]) {
            _ = try options.string("analytics_label")
            fcmOptions = json["fcm_options"]
        }
        try checkSize()
    }

    /// A field's proto name, from its JSON name in either spelling (`collapseKey` is `collapse_key`).
    public static func protoName(_ jsonName: String) -> String {
        ProtoFields.snakeCase(jsonName)
    }

    /// The fields of the message at an FCM field path (`message`, `message.android.notification`), by their proto
    /// names: what a linter suggests a misspelt key from.
    public static func fieldNames(at path: String) -> Set<String>? {
        switch path {
        case "": ["validate_only", "message"]
        case "message": messageFields
        case "message.notification": ["title", "body", "image"]
        case "message.android": androidFields
        case "message.android.notification": androidNotificationFields
        case "message.apns": ["headers", "payload", "fcm_options", "live_activity_token"]
        case "message.webpush": ["headers", "data", "notification", "fcm_options"]
        case "message.fcm_options", "message.android.fcm_options": ["analytics_label"]
        default: nil
        }
    }

    static let messageFields: Set<String> = [
        "name", "data", "notification", "android", "android_v2", "webpush", "apns", "fcm_options", "token", "fid", "topic", "condition",
    ]

    static let androidFields: Set<String> = [
        "collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options", "direct_boot_ok",
        "bandwidth_constrained_ok", "restricted_satellite_ok",
    ]

    static let androidNotificationFields: Set<String> = [
        "title", "body", "icon", "color", "sound", "tag", "click_action", "body_loc_key", "body_loc_args", "title_loc_key",
        "title_loc_args", "channel_id", "ticker", "sticky", "event_time", "local_only", "notification_priority", "default_sound",
        "default_vibrate_timings", "default_light_settings", "vibrate_timings", "visibility", "notification_count", "light_settings",
        "image", "proxy", "bypass_proxy_notification",
    ]

    private static func androidConfig(_ fields: ProtoFields) throws(FCMError) -> AndroidConfig {
        var config = AndroidConfig()
        config.collapseKey = try fields.string("collapse_key")
        if let priority = try fields.string("priority") {
            // FCM's enum is NORMAL and HIGH; the Python Admin SDK sends them in lower case, which FCM takes.
            guard let value = AndroidPriority(rawValue: priority.uppercased()) else {
                throw FCMError.malformed(field: "message.android.priority", "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \"\(priority.prefix(40))\"")
            }
            config.priority = value
        }
        switch fields.raw("ttl") {
        case .string(let ttl)?:
            guard let duration = FCMDuration.parse(ttl), duration <= maximumTimeToLive else {
                throw FCMError.invalid(field: "message.android.ttl", "Invalid TTL \"\(ttl.prefix(40))\": a duration in seconds between 0 and 2419200 (4 weeks), such as \"3600s\"")
            }
            config.timeToLive = duration
        case let ttl?:
            // A number is no Duration in JSON: "3600s" is.
            throw fields.wrongType("ttl", "type.googleapis.com/google.protobuf.Duration", ttl)
        case nil:
            break
        }
        if let package = try fields.string("restricted_package_name") {
            guard isWellFormedPackageName(package) else {
                throw FCMError.invalid(field: "message.android.restricted_package_name", "Invalid package name \"\(package.prefix(64))\"")
            }
            config.restrictedPackageName = package
        }
        if let data = try fields.stringMap("data", maximumEntries: 1_000) {
            try checkDataKeys(data, field: "message.android.data")
            config.data = data
        }
        config.notification = try fields.object("notification", fields: androidNotificationFields).map(androidNotification)
        if let options = try fields.object("fcm_options", fields: ["analytics_label"]) { _ = try options.string("analytics_label") }
        config.directBootOK = try fields.bool("direct_boot_ok") ?? false
        _ = try fields.bool("bandwidth_constrained_ok")
        _ = try fields.bool("restricted_satellite_ok")
        return config
    }

    private static func androidNotification(_ fields: ProtoFields) throws(FCMError) -> AndroidNotification {
        var notification = AndroidNotification()
        notification.title = try fields.string("title")
        notification.body = try fields.string("body")
        notification.icon = try fields.string("icon")
        if let color = try fields.string("color") {
            guard color.utf8.count == 7, color.first == "#", color.dropFirst().allSatisfy(\.isHexDigit) else {
                throw FCMError.invalid(field: "message.android.notification.color", "Invalid color \"\(color.prefix(40))\": expected #rrggbb")
            }
            notification.color = color
        }
        notification.sound = try fields.string("sound")
        notification.tag = try fields.string("tag")
        notification.clickAction = try fields.string("click_action")
        notification.bodyLocKey = try fields.string("body_loc_key")
        notification.bodyLocArgs = try fields.stringList("body_loc_args", maximum: 64)
        notification.titleLocKey = try fields.string("title_loc_key")
        notification.titleLocArgs = try fields.stringList("title_loc_args", maximum: 64)
        notification.channelID = try fields.string("channel_id")
        notification.ticker = try fields.string("ticker")
        notification.sticky = try fields.bool("sticky") ?? false
        if let time = try fields.string("event_time") {
            guard let date = ISO8601.date(from: time) ?? (try? Date(time, strategy: .iso8601)) else {
                throw FCMError.malformed(field: "message.android.notification.event_time", "Invalid value at 'message.android.notification.event_time' (type.googleapis.com/google.protobuf.Timestamp), Field 'event_time', Invalid time format: \(time.prefix(40))")
            }
            notification.eventTime = date
        }
        notification.localOnly = try fields.bool("local_only") ?? false
        if let priority = fields.raw("notification_priority") {
            notification.notificationPriority = try enumValue(priority, field: "notification_priority", in: fields, cases: [
                "PRIORITY_UNSPECIFIED", "PRIORITY_MIN", "PRIORITY_LOW", "PRIORITY_DEFAULT", "PRIORITY_HIGH", "PRIORITY_MAX",
            ]).flatMap(NotificationPriority.init(rawValue:)) ?? .unspecified
        }
        notification.defaultSound = try fields.bool("default_sound") ?? false
        notification.defaultVibrateTimings = try fields.bool("default_vibrate_timings") ?? false
        notification.defaultLightSettings = try fields.bool("default_light_settings") ?? false
        for (index, timing) in try fields.stringList("vibrate_timings", maximum: 64).enumerated() where FCMDuration.parse(timing) == nil {
            throw fields.wrongType("vibrate_timings[\(index)]", "type.googleapis.com/google.protobuf.Duration", .string(timing))
        }
        if let visibility = fields.raw("visibility") {
            let name = try enumValue(visibility, field: "visibility", in: fields, cases: ["VISIBILITY_UNSPECIFIED", "PRIVATE", "PUBLIC", "SECRET"])
            notification.visibility = name.flatMap(Visibility.init(rawValue:)) ?? .private
        }
        notification.notificationCount = try fields.int32("notification_count")
        if let count = notification.notificationCount, count < 0 {
            throw FCMError.invalid(field: "message.android.notification.notification_count", "notification_count must not be negative")
        }
        if let light = try fields.object("light_settings", fields: ["color", "light_on_duration", "light_off_duration"]) {
            _ = try light.object("color", fields: ["red", "green", "blue", "alpha"])
            _ = try light.string("light_on_duration")
            _ = try light.string("light_off_duration")
        }
        notification.image = try fields.string("image")
        _ = try fields.string("proxy")
        return notification
    }

    /// An enum by name, or by its number (the JSON mapping's two forms).
    private static func enumValue(_ value: JSONValue, field: String, in fields: ProtoFields, cases: [String]) throws(FCMError) -> String? {
        switch value {
        case .string(let name) where cases.contains(name): return name
        case .integer(let number) where cases.indices.contains(Int(number)): return cases[Int(number)]
        default: throw fields.wrongType(field, "TYPE_ENUM", value)
        }
    }

    static func checkDataKeys(_ data: [String: String], field: String) throws(FCMError) {
        for key in data.keys.sorted() where reservedDataWords.contains(key) || reservedDataPrefixes.contains(where: { key.hasPrefix($0) }) {
            throw FCMError.invalid(
                field: field, "Invalid data key \"\(key.prefix(64))\": \"from\", \"message_type\" and keys that begin with \"google.\" or \"gcm.notification.\" are reserved")
        }
    }

    /// What FCM counts toward the payload's limit, "both the keys and the values" (docs/fcm.md): the data and every
    /// text of the notification that reaches the device, Android's overrides included (the tag, the localization keys
    /// and arguments, the image and icon…), so that whatever a message stores on a phone is bounded as an APNs
    /// push's payload is.
    public var payloadSize: Int {
        var size = data.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        size += (android?.data ?? [:]).reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        for text in [notification?.title, notification?.body, notification?.image] {
            size += text?.utf8.count ?? 0
        }
        if let overrides = android?.notification {
            let texts = [
                overrides.title, overrides.body, overrides.icon, overrides.color, overrides.sound, overrides.tag, overrides.clickAction,
                overrides.bodyLocKey, overrides.titleLocKey, overrides.channelID, overrides.ticker, overrides.image,
            ]
            size += texts.reduce(0) { $0 + ($1?.utf8.count ?? 0) }
            size += (overrides.bodyLocArgs + overrides.titleLocArgs).reduce(0) { $0 + $1.utf8.count }
        }
        return size
    }

    private func checkSize() throws(FCMError) {
        let limit: Int
        if case .topic = target { limit = Self.maximumTopicPayloadSize } else { limit = Self.maximumPayloadSize }
        guard payloadSize <= limit else {
            throw FCMError.invalid(field: "message", "Message is too big: \(payloadSize) bytes of data and notification, more than the \(limit) FCM takes")
        }
    }

    /// A registration token's shape: an installation ID, a colon and more (`<FID>:APA91b…`, what the Firebase SDKs
    /// get and every app here is given), of letters, digits, `-`, `_` and `:`, at most 4 KB. Google documents no shape:
    /// its error page shows a token without one (`not-a-token`) refused as malformed, and one with it that no app has
    /// answered `UNREGISTERED`.
    static func isWellFormedToken(_ token: String) -> Bool {
        guard token.utf8.count <= 4_096, let id = FirebaseInstallation.installationID(of: token), token.utf8.count > id.utf8.count + 1 else {
            return false
        }
        return token.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x3A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }
    }

    /// An Android application ID: two or more dot-separated parts, each a letter then letters, digits or `_`.
    static func isWellFormedPackageName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.utf8.count <= 255 && parts.count >= 2 && parts.allSatisfy { part in
            guard let first = part.first, first.isASCII, first.isLetter else { return false }
            return part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }
}
