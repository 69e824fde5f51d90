public import Foundation

/// What a device did with a push that puts nothing in its notification center: woke its app in the
/// background, handed a call to the app, reloaded widgets (docs/push-types.md). iOS shows nothing for these;
/// Huddle records each as a numbered change of the device, so that the device API, its streams and its page
/// show that it arrived and what it did, instead of dropping it silently.
public struct DeviceEvent: Sendable, Hashable {
    /// How many of a device's latest events a snapshot holds (the change journal may keep more).
    public static let keptPerDevice = 100

    /// The app the push was for (its bundle identifier).
    public var app: String
    /// The `apns-push-type` sent (`alert` when none was).
    public var pushType: String
    /// The id the sender knows the push by: its `apns-id`, or an FCM message's id (written `apnsID` in the API's
    /// JSON and in stores, as it always was).
    public var messageID: String
    public var date: Date
    public var priority: Int
    /// What iOS does with such a push, in a few words.
    public var action: String
    /// The payload as the app receives it.
    public var payload: JSONValue
    /// The alert that lit the screen, for a Live Activity push that carried one and was applied; it is
    /// never a notification (docs/push-types.md §2), so the page shows it as a passing banner.
    public var alert: Alert?

    /// What an alert that lit the screen said: its title and body as sent (a `loc-key` when localized).
    public struct Alert: Sendable, Hashable {
        public var title: String
        public var body: String

        public init(title: String, body: String) {
            self.title = title
            self.body = body
        }

        /// What a Live Activity's alert said, as sent.
        public init(_ alert: ActivityAlert) {
            self.init(title: alert.title?.fallbackText ?? "", body: alert.body?.fallbackText ?? "")
        }

        var json: JSONValue {
            .object(JSONObject([("title", .string(title)), ("body", .string(body))]))
        }
    }

    public init(
        app: String, pushType: String, messageID: String, date: Date, priority: Int, action: String, payload: JSONValue, alert: Alert? = nil
    ) {
        self.app = app
        self.pushType = pushType
        self.messageID = messageID
        self.date = date
        self.priority = priority
        self.action = action
        self.payload = payload
        self.alert = alert
    }

    /// The event as the device API and its streams show it.
    public func json(number: UInt64) -> JSONValue {
        var object = JSONObject([
            ("change", .integer(Int64(number))), ("app", .string(app)), ("pushType", .string(pushType)), ("apnsID", .string(messageID)),
            ("receivedAt", .string(ISO8601.string(from: date))), ("priority", .integer(Int64(priority))), ("action", .string(action)),
            ("payload", payload),
        ])
        object["alert"] = alert?.json
        return .object(object)
    }
}

/// An event with the number of the change that recorded it.
public struct RecordedEvent: Sendable, Hashable {
    public var number: UInt64
    public var event: DeviceEvent

    public init(number: UInt64, event: DeviceEvent) {
        self.number = number
        self.event = event
    }
}
