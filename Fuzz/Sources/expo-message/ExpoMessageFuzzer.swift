import Foundation
import HuddleCore
import HuddleExpo

/// A request body of Expo's push API from arbitrary bytes, read as the API reads it: a request taken has at most 100
/// notifications, each of its tokens either names an installation ID or is refused as Expo refuses one, and what Expo
/// would send APNs and FCM for each message is JSON that reads back to the same text (a number may change its case, 0.0
/// reading back as 0); a refusal names a code with a 4xx status.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start, count: count))
    guard let json = try? JSONParser.parse(bytes) else { return 0 }
    let request: ExpoPushRequest
    do {
        request = try ExpoPushRequest(json: json)
    } catch {
        precondition((400..<500).contains(error.httpStatus) && !error.message.isEmpty)
        return 0
    }
    precondition(request.recipients.count <= ExpoPushRequest.maximumNotifications)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    for message in request.messages {
        for token in message.to {
            if let id = ExpoPushToken.installationID(of: token) { precondition(FirebaseInstallation.isInstallationID(id)) }
        }
        let payload = message.apnsPayload(project: "@fuzz/app")
        precondition((try? JSONParser.parse(payload.jsonUTF8()))?.jsonUTF8() == payload.jsonUTF8())
        let headers = message.apnsHeaders(now: now)
        precondition(headers["apns-push-type"] == "alert" || headers["apns-push-type"] == "background")
        let data = JSONValue.object(JSONObject(message.fcmData(project: "@fuzz/app").map { ($0.key, .string($0.value)) }))
        precondition((try? JSONParser.parse(data.jsonUTF8()))?.jsonUTF8() == data.jsonUTF8())
        if let notification = message.androidRequest(messageID: "m") { precondition(!notification.identifier.isEmpty || message.tag == "") }
    }
    return 0
}
