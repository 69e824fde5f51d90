import Crypto
import Foundation
import HuddleCore

/// The tokens a Live Activity push is sent to, as a device's ActivityKit would hand them to its app.
///
/// Each begins with the token of the device it belongs to, so that any server sharing the store finds the
/// device without a table of tokens; what follows names the app and activity type (a push-to-start token,
/// one per pair, the same every time) or is random (an activity's update token, made when it starts).
/// ActivityKit's tokens are longer than device tokens too; APNs does not read them, nor does anyone else.
enum LiveActivityTokens {
    /// Device token, then 64 hexadecimal digits.
    static let length = 128

    static func pushToStart(device: String, app: String, type: String) -> String {
        device + suffix(app: app, type: type)
    }

    static func newUpdateToken(device: String) -> String {
        device + (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// The device a token of an activity belongs to; `nil` for a token of another shape (a device's own).
    static func device(of token: String) -> String? {
        token.count == length ? String(token.prefix(length / 2)) : nil
    }

    /// Whether `token` is the push-to-start token of this app's activity type.
    static func isPushToStart(_ token: String, app: String, type: String) -> Bool {
        token.dropFirst(length / 2) == suffix(app: app, type: type)
    }

    private static func suffix(app: String, type: String) -> String {
        SHA256.hash(data: Data("huddle push-to-start\u{0}\(app)\u{0}\(type)".utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// A `liveactivity` push as the device applies it: resolved to its activity or push-to-start type, run
/// through the rules (``DeviceActivities``) on the activities as stored, and told as a device event.
struct LiveActivityPush: Sendable {
    let token: String
    let device: String
    let app: String
    let apnsID: String
    let priority: Int
    let payload: JSONValue
    let now: Date
    let configuration: DeviceActivities.Configuration

    /// What ``NotificationStore/updateActivities(device:app:_:)`` runs in its transaction.
    var update: ActivitiesUpdate {
        { [self] activities, appRecord in
            var device = DeviceActivities(activities: activities, configuration: configuration)
            let result = device.apply(
                payload: payload, to: target(in: device, declarations: appRecord.activities), priority: priority,
                declarations: appRecord.activities, at: now,
                newActivity: NewActivityIdentity(id: UUID().uuidString.lowercased(), updateToken: LiveActivityTokens.newUpdateToken(device: self.device)))
            activities = device.activities
            return DeviceEvent(
                app: app, pushType: "liveactivity", apnsID: apnsID, date: now, priority: priority, action: Self.action(result), payload: payload)
        }
    }

    /// The activity whose update token this is, else the push-to-start type whose token it is (the type the
    /// payload names, or one the app declares); a token no activity holds names none, and the push is
    /// ignored as iOS ignores it.
    private func target(in activities: DeviceActivities, declarations: ActivityDeclarations) -> ActivityPushTarget {
        if let activity = activities.activity(updateToken: token) { return .activity(id: activity.id) }
        var types = declarations.types.map(\.name)
        if case .string(let named)? = payload["aps"]?["attributes-type"] { types.insert(named, at: 0) }
        if let type = types.first(where: { LiveActivityTokens.isPushToStart(token, app: app, type: $0) }) {
            return .pushToStart(app: app, typeName: type)
        }
        return .activity(id: "")
    }

    /// What the device did, in a sentence for the event.
    static func action(_ result: ActivityPushResult) -> String {
        var text: String
        switch result.outcome {
        case .started(let activity, let reported):
            text = "started Live Activity \(activity.id) (\(activity.typeName))"
            if let reported { text += "; the app reports its update token \(reported)" }
        case .updated(let activity):
            text = "updated Live Activity \(activity.id)" + (activity.state == .stale ? ", which is stale (its stale-date has passed)" : "")
        case .ended(let activity):
            if activity.state == .dismissed {
                text = "ended Live Activity \(activity.id) and removed it at once (its dismissal-date has passed)"
            } else {
                text = "ended Live Activity \(activity.id); it stays on the Lock Screen until \(activity.dismissalDate.map(ISO8601.string(from:)) ?? "removed")"
            }
        case .ignored(let reason):
            text = "ignored: \(reason)"
        case .dropped(let reason):
            text = "dropped: \(reason)"
        case .throttled(_, let used, let limit):
            text = "throttled: the activity used \(used) of its \(limit) priority-10 updates this hour; "
                + "send apns-priority 5, or declare NSSupportsLiveActivitiesFrequentUpdates"
        }
        if let alert = result.alert {
            let words = [alert.title, alert.body].compactMap { $0?.fallbackText }.joined(separator: ": ")
            text += "; its alert lit the screen" + (words.isEmpty ? "" : " (\(words))")
        }
        for note in result.notes { text += "; note: \(note)" }
        return text
    }
}
