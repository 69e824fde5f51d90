/// What a device is: an iPhone, or an Android phone of a major version (15 for Android 15). Everything that differs
/// between kinds is asked of the kind here, in one place, rather than decided by a test of the platform at each edge:
/// how the device shows its notifications, which sender's messages reach it and how, which app members it has. A
/// third kind adds its case and answers each question (docs/architecture.md, "Device kinds").
public enum DeviceKind: Sendable, Hashable {
    case iPhone
    case android(version: Int)

    /// The Android versions a device may say it runs: 8.0 (channels) to a bound well past today's.
    public static let androidVersions = 8...99

    /// The name a registration, a scenario and a stored record use (the API's `platform`).
    public var name: String {
        switch self {
        case .iPhone: "ios"
        case .android: "android"
        }
    }

    /// How a message names the device: "an iPhone", "an Android phone".
    public var deviceDescription: String {
        switch self {
        case .iPhone: "an iPhone"
        case .android: "an Android phone"
        }
    }

    /// The Android version, or `nil` for an iPhone.
    public var androidVersion: Int? {
        if case .android(let version) = self { return version }
        return nil
    }

    /// How the device shows its notifications to a viewer.
    public enum Presentation: Sendable, Hashable {
        /// iOS's Notification Center and Lock Screen: stacks by app and thread, summaries, hidden previews.
        case notificationCenter
        /// Android's notification shade and lock screen: channels, tags, bundles of an app's fourth notification.
        case shade
    }

    public var presentation: Presentation {
        switch self {
        case .iPhone: .notificationCenter
        case .android: .shade
        }
    }

    /// Whether APNs device tokens reach it: an Android phone's apps get messages through FCM only.
    public var takesAPNsPushes: Bool {
        switch self {
        case .iPhone: true
        case .android: false
        }
    }

    /// What an FCM message to one of its apps becomes on the device.
    public enum FCMArrival: Sendable, Hashable {
        /// The notification the Firebase SDK posts (or, for a data message, what the app's `onMessageReceived` gets).
        case androidNotification
        /// The APNs push FCM makes of the message's `apns` block and notification.
        case apnsPush
    }

    public var fcmArrival: FCMArrival {
        switch self {
        case .iPhone: .apnsPush
        case .android: .androidNotification
        }
    }

    /// The field of an FCM message that gives a notification on the device its identifier, and its name: what an
    /// answer refusing that identifier names.
    public var fcmIdentifierField: (path: String, name: String) {
        switch fcmArrival {
        case .androidNotification: ("message.android.notification.tag", "tag")
        case .apnsPush: ("message.apns.headers", "apns-collapse-id")
        }
    }

    /// What an Expo message to one of its apps becomes: Expo sends an iPhone an APNs push, and Android an FCM message.
    public enum ExpoArrival: Sendable, Hashable {
        /// The APNs push Expo makes of the message.
        case apnsPush
        /// The FCM message, of a notification and data, that Android shows as any FCM notification.
        case fcmMessage
    }

    public var expoArrival: ExpoArrival {
        switch self {
        case .iPhone: .apnsPush
        case .android: .fcmMessage
        }
    }

    /// What a web push to one of its web apps becomes on the device.
    public enum WebPushArrival: Sendable, Hashable {
        /// A Home Screen web app on an iPhone (iOS 16.4 and later): a Declarative Web Push is shown as it says (iOS
        /// 18.4), any other push goes to the web app's service worker, and Safari revokes a web app whose pushes show
        /// nothing.
        case homeScreenWebApp
        /// Chrome on Android: every push goes to the site's service worker, and a push that shows nothing gets Chrome's
        /// own notification that the site was updated in the background.
        case chrome
    }

    public var webPushArrival: WebPushArrival {
        switch self {
        case .iPhone: .homeScreenWebApp
        case .android: .chrome
        }
    }

    /// The push service a subscription imitates when it names none: the browser's own (Safari's is Apple's,
    /// Chrome's is Google's).
    public var defaultWebPushService: String {
        switch self {
        case .iPhone: "apple"
        case .android: "fcm"
        }
    }

    /// The members of the device API's app that only another kind's apps have, each with what it is: an Android app's
    /// notification channels mean nothing on an iPhone, and an iPhone app's categories, Live Activities and
    /// capabilities (Time Sensitive, critical alerts) nothing on Android. Refused, not stored unseen.
    public var foreignAppMembers: [(member: String, meaning: String)] {
        switch self {
        case .iPhone:
            [("channels", "notification channels are Android's"), ("defaultChannel", "a default notification channel is Android's")]
        case .android:
            [("categories", "notification categories are an iPhone's"), ("liveActivities", "Live Activities are an iPhone's"),
             ("capabilities", "Time Sensitive and critical alerts are an iPhone's")]
        }
    }

    /// From a stored name and version.
    public init?(name: String, androidVersion: Int?) {
        switch name {
        case "ios": self = .iPhone
        case "android": self = .android(version: androidVersion ?? 15)
        default: return nil
        }
    }
}

extension DeviceKind {
    /// `platform` (`ios`, the default, or `android`) and, for Android, `androidVersion` (15 by default), as a
    /// registration and a scenario give them.
    public init(in object: JSONReader) throws(JSONReadError) {
        let versionMember = try object.optionalMember("androidVersion")
        let name = try object.optionalMember("platform")
        switch try name?.string() ?? "ios" {
        case "ios":
            if let versionMember { throw versionMember.failure("androidVersion is for a device whose \"platform\" is \"android\"") }
            self = .iPhone
        case "android":
            let version = try versionMember?.integer() ?? 15
            guard Self.androidVersions.contains(version) else {
                throw (versionMember ?? object).failure(
                    "an Android version from \(Self.androidVersions.lowerBound) (notification channels) to \(Self.androidVersions.upperBound)")
            }
            self = .android(version: version)
        case let other:
            throw (name ?? object).failure("expected ios or android, found \"\(other.prefix(40))\"")
        }
    }
}
