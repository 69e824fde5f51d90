import Foundation
import HuddleAPNs
import HuddleCore
import HuddleFCM

/// FCM HTTP v1 message files: a `messages:send` body (`{"message": {…}}`) or its message alone. What FCM refuses is
/// reported at the key it is about, with FCM's own words and, for a misspelt field, the field meant; the `apns`
/// block's payload is linted as the APNs push FCM turns it into.
struct FCMRules {
    /// Whether a JSON file is an FCM message: a send body, or an object that names one of its targets.
    static func isMessage(_ json: JSONValue) -> Bool {
        guard case .object(let object) = json else { return false }
        if case .object(let message)? = object["message"] { return isBareMessage(message) }
        return isBareMessage(object)
    }

    private static func isBareMessage(_ object: JSONObject) -> Bool {
        object["aps"] == nil && ["token", "topic", "condition", "fid"].contains { object[$0] != nil }
    }

    /// Lints one message file.
    static func check(_ document: JSONDocument, payloadRules: inout PayloadRules, app: LintApp) {
        let wrapped: Bool
        if case .object(let object) = document.json, object["message"] != nil { wrapped = true } else { wrapped = false }
        let body = wrapped ? document.json : .object(JSONObject([("message", document.json)]))
        let request: FCMSendRequest
        do {
            request = try FCMSendRequest(json: body)
        } catch {
            let field = error.fieldViolations.first?.field ?? "message"
            var message = error.fieldViolations.first?.description ?? error.message
            if message.hasSuffix(".") { message.removeLast() }
            if let suggestion = suggestion(for: message) { message += ": did you mean `\(suggestion)`?" }
            if field.hasSuffix(".ttl"), message.contains("protobuf.Duration") { message += ": a ttl is a duration string, such as \"3600s\"" }
            let status = error.code == nil ? "Google's front end answers 400" : "FCM answers \(error.httpStatus) \(error.status)"
            var at = path(of: field, in: document.json, wrapped: wrapped)
            // A field FCM names by its object (an unknown name, a reserved data key): the key itself, where it is.
            if let key = quotedName(in: message), case .object(let object)? = document.json.value(at: at), object[key] != nil {
                at.append(.key(key))
            }
            document.report(.fcmInvalidMessage, at: at, "\(message) (\(status))")
            return
        }
        checkChannel(request.message, in: document, wrapped: wrapped, app: app)
        if let apns = request.message.apns, let payload = apns.payload {
            // The push type FCM's translation gives the message (as the server delivers it), not the raw header alone.
            let pushType = PushType(rawValue: request.message.apnsPushType) ?? .alert
            let prefix = path(of: "message.apns.payload", in: document.json, wrapped: wrapped)
            payloadRules.checkEmbedded(payload, in: document, at: prefix, pushType: pushType, app: app)
        }
    }

    /// A `channel_id` the app's description does not declare: the Firebase SDK posts such a notification to the
    /// manifest's default channel, else to its own "Miscellaneous" one (firebase-android-sdk), not where it was meant.
    private static func checkChannel(_ message: FCMMessage, in document: JSONDocument, wrapped: Bool, app: LintApp) {
        guard let asked = message.android?.notification?.channelID, let firebase = app.firebase, let id = app.bundleIdentifier,
            !firebase.channels.contains(where: { $0.id == asked })
        else { return }
        let used = firebase.channel(for: asked)
        let fallback = used.id == AndroidChannel.firebaseFallback.id
            ? "the Firebase SDK's fallback channel \"\(used.name)\"" : "the manifest's default channel \"\(used.id)\""
        document.report(
            .fcmUnknownChannel, at: path(of: "message.android.notification.channel_id", in: document.json, wrapped: wrapped),
            "channel \"\(asked.prefix(100))\" is not one \(id) declares (\(firebase.channels.map(\.id).joined(separator: ", "))): Android posts it to \(fallback)")
    }

    /// The first name in double quotes in a description (`Unknown name "x"`, `Invalid data key "from"`).
    private static func quotedName(in description: String) -> String? {
        guard let start = description.firstIndex(of: "\"") else { return nil }
        let rest = description[description.index(after: start)...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// For `Unknown name "colapse_key" at 'message.android'`, the field meant.
    private static func suggestion(for description: String) -> String? {
        guard let nameStart = description.range(of: "Unknown name \"")?.upperBound,
            let nameEnd = description[nameStart...].firstIndex(of: "\""),
            let atStart = description[nameEnd...].range(of: " at '")?.upperBound,
            let atEnd = description[atStart...].firstIndex(of: "'")
        else { return nil }
        let name = String(description[nameStart..<nameEnd])
        guard let fields = FCMMessage.fieldNames(at: String(description[atStart..<atEnd])) else { return nil }
        return KeySuggestion.closest(to: name, in: fields, separator: "_")
    }

    /// The JSON path of an FCM field path (`message.android.ttl`, `message.data[1].value`) in the file as written:
    /// each field by the key that spells it (snake_case or lowerCamelCase), a map's entry `[i]` by its key.
    static func path(of field: String, in json: JSONValue, wrapped: Bool) -> JSONDocument.Path {
        var path: JSONDocument.Path = []
        var value = json
        var names = field.split(separator: ".").map(String.init)
        if !wrapped, names.first == "message" { names.removeFirst() }
        for name in names {
            let (key, index) = split(name)
            guard case .object(let object) = value,
                let member = object.members.first(where: { $0.key == key || FCMMessage.protoName($0.key) == key })
            else { break }
            path.append(.key(member.key))
            value = member.value
            guard let index else { continue }
            if case .object(let map) = value, map.members.indices.contains(index) {
                path.append(.key(map.members[index].key))
                return path
            }
            if case .array(let elements) = value, elements.indices.contains(index) {
                path.append(.index(index))
                value = elements[index]
            }
        }
        return path
    }

    /// `data[1]` as `data` and 1.
    private static func split(_ name: String) -> (String, Int?) {
        guard name.hasSuffix("]"), let open = name.lastIndex(of: "["), let index = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]) else {
            return (name, nil)
        }
        return (String(name[..<open]), index)
    }
}
