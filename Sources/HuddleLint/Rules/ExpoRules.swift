import Foundation
import HuddleCore
import HuddleExpo

/// Expo push message files: one message (`{"to": "ExponentPushToken[…]", …}`) or an array of them, as Expo's push API
/// takes them. What the API refuses is reported at its key, and so is what Expo accepts and then cannot deliver: a `to`
/// that is no Expo push token (an error ticket), and a message whose APNs payload or FCM data is over 4096 bytes (a
/// `MessageTooBig` receipt) (docs/expo.md).
struct ExpoRules {
    /// Whether a JSON file is Expo messages: an object with `to`, or an array of them.
    static func isMessage(_ json: JSONValue) -> Bool {
        switch json {
        case .object(let object): object["to"] != nil && object["aps"] == nil && object["message"] == nil
        case .array(let elements): !elements.isEmpty && elements.allSatisfy { if case .object(let object) = $0 { object["to"] != nil } else { false } }
        default: false
        }
    }

    /// The project a lint names in what Expo would send, as long as any (`@owner/slug`).
    static let lintProject = "@owner/a-project-slug-of-a-typical-length"

    static func check(_ document: JSONDocument) {
        let request: ExpoPushRequest
        do {
            request = try ExpoPushRequest(json: document.json)
        } catch {
            let at = error.keyPath.map { document.path($0) } ?? []
            document.report(.expoInvalidMessage, at: at, "Expo's push API answers \(error.httpStatus) \(error.code.rawValue): \(error.message)")
            return
        }
        for (index, message) in request.messages.enumerated() {
            let prefix: JSONDocument.Path = if case .array = document.json { [.index(index)] } else { [] }
            for (position, token) in message.to.enumerated() where ExpoPushToken.installationID(of: token) == nil {
                let at = prefix + [.key("to")] + (message.toIsSingle ? [] : [.index(position)])
                document.report(
                    .expoInvalidMessage, at: at,
                    "\"\(token.prefix(80))\" is not an Expo push token (ExponentPushToken[…]): its ticket is DeviceNotRegistered, and Python's SDK refuses to send it")
            }
            let apns = message.apnsPayload(project: lintProject).jsonUTF8().count
            let data = JSONValue.object(JSONObject(message.fcmData(project: lintProject).sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
                .jsonUTF8().count
            let largest = max(apns, data)
            if largest > 4096 {
                document.report(
                    .expoTooLarge, at: prefix,
                    "Expo would send \(apns) bytes to APNs and \(data) to FCM; past 4096 its ticket is ok and its receipt MessageTooBig")
            }
        }
    }
}
