public import Foundation
public import HuddleCore

/// A message of FCM's HTTP v1 API (`projects.messages.send`'s `message`), as Google's REST reference defines it,
/// read and checked by ``FCMMessage/decode(_:)``. Every field the reference lists is read; the ones Android's
/// shade and the APNs push use are kept typed, the rest (web push, analytics labels) checked and kept as sent.
public struct FCMMessage: Sendable, Hashable {
    /// Where it goes: exactly one.
    public enum Target: Sendable, Hashable {
        /// A registration token (`token`, which Google's SDKs of 2026 call deprecated).
        case token(String)
        /// A Firebase installation ID (`fid`), which replaces the token: an app's registration token's part before its
        /// `:` (``FirebaseInstallation/installationID(of:)``).
        case installation(String)
        case topic(String)
        case condition(TopicCondition)
    }

    public struct Notification: Sendable, Hashable {
        public var title: String?
        public var body: String?
        public var image: String?
    }

    /// `android.priority`.
    public enum AndroidPriority: String, Sendable, Hashable {
        case normal = "NORMAL"
        case high = "HIGH"
    }

    /// `AndroidNotification.visibility` (`VISIBILITY_UNSPECIFIED` reads as private, as on the device).
    public enum Visibility: String, Sendable, Hashable {
        case `private` = "PRIVATE"
        case `public` = "PUBLIC"
        case secret = "SECRET"
    }

    /// `AndroidNotification.notification_priority`.
    public enum NotificationPriority: String, Sendable, Hashable {
        case unspecified = "PRIORITY_UNSPECIFIED"
        case min = "PRIORITY_MIN"
        case low = "PRIORITY_LOW"
        case `default` = "PRIORITY_DEFAULT"
        case high = "PRIORITY_HIGH"
        case max = "PRIORITY_MAX"
    }

    public struct AndroidNotification: Sendable, Hashable {
        public var title: String?
        public var body: String?
        public var icon: String?
        public var color: String?
        public var sound: String?
        public var tag: String?
        public var clickAction: String?
        public var bodyLocKey: String?
        public var bodyLocArgs: [String] = []
        public var titleLocKey: String?
        public var titleLocArgs: [String] = []
        public var channelID: String?
        public var ticker: String?
        public var sticky = false
        public var eventTime: Date?
        public var localOnly = false
        public var notificationPriority: NotificationPriority = .unspecified
        public var defaultSound = false
        public var defaultVibrateTimings = false
        public var defaultLightSettings = false
        public var visibility: Visibility = .private
        /// The badge count a launcher may show.
        public var notificationCount: Int?
        public var image: String?
    }

    public struct AndroidConfig: Sendable, Hashable {
        public var collapseKey: String?
        public var priority: AndroidPriority?
        /// How long FCM keeps it for a device that is offline: 0 to 4 weeks; `nil` for the default (4 weeks).
        public var timeToLive: Duration?
        public var restrictedPackageName: String?
        /// Replaces the message's `data` on Android when present.
        public var data: [String: String]?
        public var notification: AndroidNotification?
        public var directBootOK = false
    }

    public struct APNsConfig: Sendable, Hashable {
        public var headers: [String: String] = [:]
        /// The APNs payload, `aps` and custom keys, as the push will carry it.
        public var payload: JSONValue?
        /// `live_activity_token`: an ActivityKit push-to-start token or an activity's push token, which the message
        /// goes to as a `liveactivity` push instead of a notification (Firebase's "Live Activity" page).
        public var liveActivityToken: String?
    }

    public var target: Target
    public var data: [String: String]
    public var notification: Notification?
    public var android: AndroidConfig?
    public var apns: APNsConfig?
    /// `webpush`, checked and kept as sent: Huddle has no browser to show it on.
    public var webpush: JSONValue?
    public var fcmOptions: JSONValue?

    /// The largest message FCM takes: its data and notification, keys and values (4096 bytes).
    public static let maximumPayloadSize = 4096
    /// The largest message to a topic (Google's error-code page: 2048 bytes).
    public static let maximumTopicPayloadSize = 2048
    /// Four weeks, the longest `ttl`.
    public static let maximumTimeToLive = Duration.seconds(2_419_200)
}
