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
        { [self] activities, declarations in
            var device = DeviceActivities(activities: activities, configuration: configuration)
            let result = device.apply(
                payload: payload, to: target(in: device, declarations: declarations), priority: priority,
                declarations: declarations, at: now,
                newActivity: NewActivityIdentity(id: UUID().uuidString.lowercased(), updateToken: LiveActivityTokens.newUpdateToken(device: self.device)))
            activities = device.activities
            return DeviceEvent(
                app: app, pushType: "liveactivity", apnsID: apnsID, date: now, priority: priority, action: result.summary, payload: payload,
                alert: result.alert.map(DeviceEvent.Alert.init))
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
}
