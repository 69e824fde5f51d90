import HuddleCore

/// The `apns-push-type` values Apple lists ("Sending notification requests to APNs"; docs/push-types.md).
public enum PushType: String, Sendable, Hashable, CaseIterable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// Every push type's topic suffix.
    static let topicSuffixes = allCases.compactMap(\.topicSuffix)

    /// The suffix the `apns-topic` must carry for this push type (`com.example.app.voip`), if any.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: nil
        case .location: ".location-query"
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The largest payload this push type may carry.
    public var maximumPayloadSize: Int {
        self == .voip ? APNsPayload.maximumVoIPSize : APNsPayload.maximumSize
    }

    /// Whether APNs takes this `apns-priority` for this push type: a background push must not claim
    /// immediate delivery (10), and a Live Activity takes 5 or 10 only.
    public func allows(priority: Int) -> Bool {
        switch self {
        case .background: priority != 10
        case .liveactivity: priority == 5 || priority == 10
        default: true
        }
    }

    /// The priority a push of this type has when it names none: 10, but 5 for a background push.
    public var defaultPriority: Int { self == .background ? 5 : 10 }

    /// What iOS does with a push of this type that puts nothing in the notification center, in a few words
    /// (docs/push-types.md, §1); `nil` for an alert that shows a notification, and for a Live Activity push,
    /// which the device's activities take (the server's `LiveActivityPush` says what it did).
    public func deviceAction(for payload: APNsPayload) -> String? {
        switch self {
        case .alert:
            if payload.content.isVisible { return nil }
            if payload.contentAvailable { return "woke the app in the background to fetch new content" }
            if let badge = payload.content.badge { return "set the app icon's badge to \(badge), and showed nothing" }
            return "showed nothing: the push has no title, subtitle or body"
        case .background:
            // Apple: a background update's aps has content-available 1; without it nothing wakes the app. An FCM data
            // message to an iPhone is such a push unless its apns payload sets content-available (docs/fcm.md).
            guard payload.contentAvailable else {
                return "woke nothing: a background push without content-available reaches the app only while it is in the foreground"
            }
            return "woke the app in the background to fetch new content; iOS may hold back such pushes when they come often"
        case .voip:
            return "handed the push to the app through PushKit; the app must report an incoming call to CallKit, or iOS ends it"
        case .pushtotalk:
            return "woke the app through the Push to Talk framework to report the active speaker"
        case .location:
            return "ran the app's Location Push Service Extension, which may send the device's location to the server"
        case .fileprovider:
            return "told the app's File Provider extension that its content changed"
        case .complication:
            return "woke the watch app to update its complication"
        case .widgets:
            return "reloaded the timelines of the app's push-enabled widgets"
        case .controls:
            return "reloaded the app's control in Control Center"
        case .mdm:
            return "told the device to contact its MDM server"
        case .liveactivity:
            return nil
        }
    }
}
