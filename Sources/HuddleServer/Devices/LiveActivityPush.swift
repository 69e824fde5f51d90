import Crypto
import Foundation
import HuddleCore

/// The tokens a Live Activity push is sent to, as a device's ActivityKit would hand them to its app.
///
/// Each begins with the token of the device it belongs to, so that any server sharing the store finds the
/// device without a table of tokens; then a mark of the app it was made for (APNs binds an activity's tokens to
/// their app's topic, and answers a push to another app's token `DeviceTokenNotForTopic`); then what names the
/// activity type (a push-to-start token, one per app and type, the same every time) or a random part (an
/// activity's update token, made when it starts). The mark ends in a check of the device and the app's part, so
/// that a token the device never gave out is told from another app's. ActivityKit's tokens are longer than device
/// tokens too; APNs does not read them, nor does anyone else.
enum LiveActivityTokens {
    /// Device token, then 64 hexadecimal digits: 32 of the app's mark (24 of the app's, 8 of the check), 32 of the
    /// type's or random.
    static let length = 128
    private static let deviceLength = length / 2
    private static let appLength = 24
    private static let markLength = 32

    /// Who a token of an activity was made for, as far as the token says.
    enum Owner: Equatable {
        case app
        case anotherApp
        /// A token no device of this server gave out (or one made before tokens carried their app's mark).
        case unknown
    }

    static func pushToStart(device: String, app: String, type: String) -> String {
        device + mark(device: device, app: app) + typePart(app: app, type: type)
    }

    static func newUpdateToken(device: String, app: String) -> String {
        device + mark(device: device, app: app) + Secrets.randomHex(bytes: (length - deviceLength - markLength) / 2)
    }

    /// The device a token of an activity belongs to; `nil` for a token of another shape (a device's own).
    static func device(of token: String) -> String? {
        token.utf8.count == length ? String(token.prefix(deviceLength)) : nil
    }

    /// Whether `token` was made for `app`, for another app, or is none this server made.
    static func owner(of token: String, app: String) -> Owner {
        let utf8 = Array(token.utf8)
        guard utf8.count == length else { return .unknown }
        let device = String(decoding: utf8[..<deviceLength], as: UTF8.self)
        let appPart = String(decoding: utf8[deviceLength..<(deviceLength + appLength)], as: UTF8.self)
        let check = String(decoding: utf8[(deviceLength + appLength)..<(deviceLength + markLength)], as: UTF8.self)
        guard check == self.check(device: device, appPart: appPart) else { return .unknown }
        return appPart == self.appPart(app) ? .app : .anotherApp
    }

    /// Whether `token` is the push-to-start token of this app's activity type.
    static func isPushToStart(_ token: String, app: String, type: String) -> Bool {
        token.utf8.dropFirst(deviceLength + markLength).elementsEqual(typePart(app: app, type: type).utf8)
    }

    private static func mark(device: String, app: String) -> String {
        appPart(app) + check(device: device, appPart: appPart(app))
    }

    private static func appPart(_ app: String) -> String {
        hexadecimalDigest("huddle activity app\u{0}\(app)", digits: appLength)
    }

    private static func check(device: String, appPart: String) -> String {
        hexadecimalDigest("huddle activity token check\u{0}\(device)\u{0}\(appPart)", digits: markLength - appLength)
    }

    private static func typePart(app: String, type: String) -> String {
        hexadecimalDigest("huddle push-to-start\u{0}\(app)\u{0}\(type)", digits: length - deviceLength - markLength)
    }

    /// The first `digits` hexadecimal digits of the text's SHA-256.
    private static func hexadecimalDigest(_ text: String, digits: Int) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(digits / 2).map { String(format: "%02x", $0) }.joined()
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
                payload: payload, to: try target(in: device, declarations: declarations), priority: priority,
                declarations: declarations, at: now,
                newActivity: NewActivityIdentity(
                    id: UUID().uuidString.lowercased(), updateToken: LiveActivityTokens.newUpdateToken(device: self.device, app: app)))
            activities = device.activities
            return DeviceEvent(
                app: app, pushType: "liveactivity", messageID: apnsID, date: now, priority: priority, action: result.summary, payload: payload,
                alert: result.alert.map(DeviceEvent.Alert.init))
        }
    }

    /// The activity whose update token this is, else the push-to-start type whose token it is (the type the
    /// payload names, or one the app declares); a token no activity holds names none, and the push is ignored as
    /// iOS ignores it.
    /// - Throws: ``DeliveryRefusal/tokenOfAnotherApp`` for a token of another app, which APNs does not deliver
    ///   (`DeviceTokenNotForTopic`): checked here, in the commit, against the activities as stored.
    private func target(in activities: DeviceActivities, declarations: ActivityDeclarations) throws -> ActivityPushTarget {
        if let activity = activities.activity(updateToken: token) {
            guard activity.app == app else { throw DeliveryRefusal.tokenOfAnotherApp }
            return .activity(id: activity.id)
        }
        guard LiveActivityTokens.owner(of: token, app: app) != .anotherApp else { throw DeliveryRefusal.tokenOfAnotherApp }
        var types = declarations.types.map(\.name)
        if case .string(let named)? = payload["aps"]?["attributes-type"] { types.insert(named, at: 0) }
        if let type = types.first(where: { LiveActivityTokens.isPushToStart(token, app: app, type: $0) }) {
            return .pushToStart(app: app, typeName: type)
        }
        return .activity(id: "")
    }
}
