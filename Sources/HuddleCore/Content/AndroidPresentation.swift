public import Foundation

/// What an Android notification says beside its title and body, as FCM's `AndroidNotification` sets it and the
/// Firebase SDK posts it: its channel, its tag (the key that replaces an earlier notification), its visibility on a
/// secure lock screen, its count, and its looks. A notification content carries it when it came to an Android device.
public struct AndroidPresentation: Sendable, Hashable {
    /// `Notification.visibility`.
    public enum Visibility: String, Sendable, Hashable, CaseIterable {
        /// Shown whole on every lock screen.
        case `public`
        /// Shown on a secure lock screen as the app's name and "Contents hidden" (the default).
        case `private`
        /// Not shown on a secure lock screen at all.
        case secret
    }

    /// The channel the message asked for (the one it posts to is decided against the app's channels).
    public var channelID: String?
    /// `tag`: a later notification with the same tag replaces this one.
    public var tag: String?
    public var visibility: Visibility
    /// `notification_count` (`setNumber`): what a launcher's badge may show; negative ones are ignored.
    public var count: Int?
    public var image: String?
    public var icon: String?
    /// `#rrggbb`.
    public var color: String?
    public var sound: String?
    /// `event_time`: the shade sorts by it (`setWhen`); the arrival when not set.
    public var eventTime: Date?
    /// `sticky`: not dismissed when tapped.
    public var sticky: Bool

    public init(
        channelID: String? = nil, tag: String? = nil, visibility: Visibility = .private, count: Int? = nil, image: String? = nil,
        icon: String? = nil, color: String? = nil, sound: String? = nil, eventTime: Date? = nil, sticky: Bool = false
    ) {
        self.channelID = channelID
        self.tag = tag
        self.visibility = visibility
        self.count = count
        self.image = image
        self.icon = icon
        self.color = color
        self.sound = sound
        self.eventTime = eventTime
        self.sticky = sticky
    }

    static let jsonKeys: Set<String> = ["channelId", "tag", "visibility", "count", "image", "icon", "color", "sound", "eventTime", "sticky"]
}

extension AndroidPresentation {
    /// The JSON form inside a content's `android` member (a scenario's, a store's).
    public init(json reader: JSONReader) throws(JSONReadError) {
        try reader.rejectUnknownMembers(Self.jsonKeys)
        self.init()
        channelID = try reader.optionalMember("channelId")?.string()
        tag = try reader.optionalMember("tag")?.string()
        if let member = try reader.optionalMember("visibility") {
            let name = try member.string()
            guard let value = Visibility(rawValue: name) else {
                throw member.failure("expected public, private or secret, found \"\(name.prefix(40))\"")
            }
            visibility = value
        }
        count = try reader.optionalMember("count")?.integer()
        image = try reader.optionalMember("image")?.string()
        icon = try reader.optionalMember("icon")?.string()
        color = try reader.optionalMember("color")?.string()
        sound = try reader.optionalMember("sound")?.string()
        if let member = try reader.optionalMember("eventTime") {
            let text = try member.string()
            guard let date = ISO8601.date(from: text) else { throw member.failure("expected an ISO 8601 date, found \"\(text.prefix(40))\"") }
            eventTime = date
        }
        sticky = try reader.optionalMember("sticky")?.bool() ?? false
    }

    public var json: JSONValue {
        var object = JSONObject()
        object["channelId"] = channelID.map(JSONValue.string)
        object["tag"] = tag.map(JSONValue.string)
        if visibility != .private { object["visibility"] = .string(visibility.rawValue) }
        object["count"] = count.map { .integer(Int64($0)) }
        object["image"] = image.map(JSONValue.string)
        object["icon"] = icon.map(JSONValue.string)
        object["color"] = color.map(JSONValue.string)
        object["sound"] = sound.map(JSONValue.string)
        object["eventTime"] = eventTime.map { .string(ISO8601.string(from: $0)) }
        if sticky { object["sticky"] = .bool(true) }
        return .object(object)
    }
}
