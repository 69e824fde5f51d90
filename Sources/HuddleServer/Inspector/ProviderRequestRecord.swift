import Foundation
import HuddleAPNs
import HuddleCore

/// What the request inspector keeps of one request to the provider endpoint: who sent what, and what it
/// was answered. Never the provider token itself: its key, team and age only.
struct ProviderRequestRecord: Sendable {
    /// Numbers the server's requests from 1, in the order they were answered.
    var id: UInt64 = 0
    var receivedAt: Date
    /// How long the answer took, in microseconds.
    var microseconds: Int64 = 0
    var client: String?
    var httpVersion: String
    var tls: Bool
    var method: String
    var path: String
    var deviceToken: String?
    /// Every `apns-` header, in the order sent.
    var apnsHeaders: [(name: String, value: String)]
    var tokenKeyID: String?
    var tokenTeamID: String?
    var tokenIssuedAt: Date?
    /// The body as received, when it was read (at most the push type's payload limit).
    var payload: [UInt8]?
    var status: Int = 0
    var reason: String?
    var apnsID: String = ""
    var description: String?
    /// The notification an accepted push stored: its app and identifier.
    var storedApp: String?
    var storedIdentifier: String?

    /// What the record holds in memory, roughly, for the history's byte limit.
    var byteCount: Int {
        256 + path.utf8.count + (payload?.count ?? 0) + (description?.utf8.count ?? 0)
            + apnsHeaders.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    var topic: String? { apnsHeaders.first { $0.name == "apns-topic" }?.value }

    /// The record as the admin API and the inspector's stream show it; `group` is the group the stored
    /// notification is in now, when the caller looked it up.
    func json(now: Date, group: String? = nil) -> JSONValue {
        var object = JSONObject([
            ("id", .integer(Int64(id))),
            ("receivedAt", .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(receivedAt))),
            ("durationMicroseconds", .integer(microseconds)),
            ("connection", .object(JSONObject([
                ("client", client.map(JSONValue.string) ?? .null), ("httpVersion", .string(httpVersion)), ("tls", .bool(tls)),
            ]))),
            ("method", .string(method)),
            ("path", .string(path)),
            ("deviceToken", deviceToken.map(JSONValue.string) ?? .null),
            ("topic", topic.map(JSONValue.string) ?? .null),
            ("headers", .object(JSONObject(apnsHeaders.map { ($0.name, JSONValue.string($0.value)) }))),
        ])
        if let tokenKeyID, let tokenTeamID {
            var token = JSONObject([("keyID", .string(tokenKeyID)), ("teamID", .string(tokenTeamID))])
            if let tokenIssuedAt { token["ageSeconds"] = .integer(Int64(saturating: now.timeIntervalSince(tokenIssuedAt).rounded(.down))) }
            object["providerToken"] = .object(token)
        }
        if let payload {
            let text = String(decoding: payload, as: UTF8.self)
            // Valid JSON is shown as JSON; anything else as text, as far as it is text.
            if let value = try? JSONParser.parse(payload) { object["payload"] = value } else { object["payloadText"] = .string(text) }
        }
        var answer = JSONObject([("status", .integer(Int64(status))), ("apnsID", .string(apnsID))])
        if let reason { answer["reason"] = .string(reason) }
        if let description { answer["description"] = .string(description) }
        object["answer"] = .object(answer)
        if let storedApp, let storedIdentifier {
            var stored = JSONObject([("app", .string(storedApp)), ("identifier", .string(storedIdentifier))])
            if let group { stored["group"] = .string(group) }
            object["notification"] = .object(stored)
        }
        return .object(object)
    }
}
