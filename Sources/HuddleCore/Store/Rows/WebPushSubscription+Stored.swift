import Foundation

extension WebPushSubscription {
    /// As a store keeps it beside its ID's own column.
    public var storedText: String {
        var object = JSONObject([
            ("origin", .string(origin)), ("service", .string(service)), ("applicationServerKey", .string(applicationServerKey)), ("privateKey", .string(privateKey)),
            ("auth", .string(authSecret)), ("createdAt", .integer(createdAt.milliseconds)), ("silentPushes", .integer(Int64(silentPushes))),
            ("serviceWorkerShowsNotifications", .bool(serviceWorkerShowsNotifications)),
        ])
        if !online { object["online"] = .bool(false) }
        if !pending.isEmpty { object["pending"] = .array(pending.map(\.storedJSON)) }
        object["endedAt"] = endedAt.map { .integer($0.milliseconds) }
        object["endReason"] = endReason.map(JSONValue.string)
        return JSONValue.object(object).jsonText()
    }

    /// Read back from a store; `nil` when the app has no subscription.
    /// - Throws: ``StoreError`` `.corrupt` naming the app, for text that does not decode.
    public static func stored(id: String?, _ text: String?, app topic: String) throws(StoreError) -> WebPushSubscription? {
        guard let id, let text else { return nil }
        do {
            let reader = JSONReader(try JSONParser.parse(text))
            try reader.rejectUnknownMembers([
                "origin", "service", "applicationServerKey", "privateKey", "auth", "createdAt", "endedAt", "endReason", "silentPushes",
                "serviceWorkerShowsNotifications", "online", "pending",
            ])
            return WebPushSubscription(
                id: id, origin: try reader.member("origin").string(), service: try reader.member("service").string(), applicationServerKey: try reader.member("applicationServerKey").string(),
                privateKey: try reader.member("privateKey").string(), authSecret: try reader.member("auth").string(),
                createdAt: Date(milliseconds: Int64(try reader.member("createdAt").integer())),
                endedAt: try reader.optionalMember("endedAt").map { reader throws(JSONReadError) in Date(milliseconds: Int64(try reader.integer())) },
                endReason: try reader.optionalMember("endReason")?.string(), silentPushes: try reader.member("silentPushes").integer(),
                serviceWorkerShowsNotifications: try reader.member("serviceWorkerShowsNotifications").bool(),
                online: try reader.optionalMember("online")?.bool() ?? true,
                pending: try reader.optionalMember("pending")?.array().map { reader throws(JSONReadError) in try PendingWebPush(stored: reader) } ?? [])
        } catch {
            throw StoreError(.corrupt, "the web push subscription of app \(topic) cannot be read: \(error)")
        }
    }
}

extension PendingWebPush {
    var storedJSON: JSONValue {
        var object = JSONObject([
            ("messageID", .string(messageID)), ("receivedAt", .integer(receivedAt.milliseconds)), ("ttl", .integer(Int64(ttl))),
            ("encoding", .string(encoding)), ("body", .string(body)),
        ])
        object["urgency"] = urgency.map(JSONValue.string)
        object["topic"] = topic.map(JSONValue.string)
        object["salt"] = salt.map(JSONValue.string)
        object["senderKey"] = senderKey.map(JSONValue.string)
        return .object(object)
    }

    init(stored reader: JSONReader) throws(JSONReadError) {
        try reader.rejectUnknownMembers(["messageID", "receivedAt", "ttl", "encoding", "body", "urgency", "topic", "salt", "senderKey"])
        self.init(
            messageID: try reader.member("messageID").string(), receivedAt: Date(milliseconds: Int64(try reader.member("receivedAt").integer())),
            ttl: try reader.member("ttl").integer(), urgency: try reader.optionalMember("urgency")?.string(),
            topic: try reader.optionalMember("topic")?.string(), encoding: try reader.member("encoding").string(),
            salt: try reader.optionalMember("salt")?.string(), senderKey: try reader.optionalMember("senderKey")?.string(),
            body: try reader.member("body").string())
    }
}
