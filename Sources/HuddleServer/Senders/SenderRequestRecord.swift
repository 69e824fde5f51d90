import Foundation
import HuddleAPNs
import HuddleCore

/// What the request inspector keeps of one request to a sender API (APNs' provider API, its broadcasts, FCM's
/// `messages:send`): who sent what, through which, and what it was answered. Never a token itself: the key that signed
/// it, its issuer (an APNs team, a Firebase project) and its age only.
///
/// Its JSON (``json(now:group:)``) keeps the names the inspector's clients read (`apnsID`, `providerToken.teamID`)
/// whatever the sender: they are the admin API's, docs/inspector.md.
struct SenderRequestRecord: Sendable {
    /// Numbers the server's requests from 1, in the order they were answered.
    var id: UInt64 = 0
    var receivedAt: Date
    /// How long the answer took, in microseconds.
    var microseconds: Int64 = 0
    var client: String?
    var httpVersion: String
    var tls: Bool
    /// The environment the request went to (by its `:authority`).
    var environment: APNsEnvironment = .development
    var method: String
    var path: String
    var deviceToken: String?
    /// The sender's own headers (APNs' `apns-` ones), in the order sent.
    var headers: [(name: String, value: String)]
    /// The key that signed the request's token (an APNs provider token, a Google access token's service account).
    var tokenKeyID: String?
    /// Who the token speaks for: an APNs team, a Firebase project.
    var tokenIssuer: String?
    var tokenIssuedAt: Date?
    /// For a request on a connection that presented a provider certificate: its subject and topics.
    var certificateSubject: String?
    var certificateTopics: [String]?
    /// The body as received, when it was read (at most the push type's payload limit).
    var payload: [UInt8]?
    var status: Int = 0
    var reason: String?
    /// The id the sender answered the message with (`apns-id`, `apns-request-id`, FCM's message name).
    var messageID: String = ""
    /// The `apns-unique-id` an accepted push was answered with (Apple answers one in development, for its
    /// Push Notifications Console's delivery log), lowercase.
    var uniqueID: String?
    var description: String?
    /// What a fault asked for by an admin did to the request (``apns.md``'s faults on demand), if one caught it.
    var fault: String?
    /// The notification an accepted push stored: its app and identifier.
    var storedApp: String?
    var storedIdentifier: String?
    /// For an accepted push with nothing to show: what the device did with it (``PushType/deviceAction(for:)``).
    var eventAction: String?
    /// For a stored notification the person's settings touched: what the device did ("held for the 08:00 summary",
    /// "silenced by the Work Focus").
    var arrival: String?
    /// What only its sender has, shown as the record's member of the sender's name: a web push's service, VAPID
    /// claims, TTL, Urgency and Topic and what the browser decrypted (`webPush`); an Expo message's ticket, receipt
    /// and what Expo sent APNs or FCM for it (`expo`).
    var senderDetails: SenderDetails? {
        didSet { senderDetailsBytes = senderDetails?.value.jsonUTF8().count ?? 0 }
    }
    /// The size of ``senderDetails`` as JSON, counted once, for the history's byte limit.
    private var senderDetailsBytes = 0

    init(
        receivedAt: Date, client: String? = nil, httpVersion: String, tls: Bool, method: String, path: String,
        headers: [(name: String, value: String)]
    ) {
        self.receivedAt = receivedAt
        self.client = client
        self.httpVersion = httpVersion
        self.tls = tls
        self.method = method
        self.path = path
        self.headers = headers
    }

    /// Keeps the key, team and age of the token a request presented, which may not have been verified: a
    /// stranger wrote it, so nothing in it is used beyond being shown.
    mutating func noteProviderToken(_ token: ProviderToken) {
        tokenKeyID = token.keyID
        tokenIssuer = token.teamID
        tokenIssuedAt = token.issuedAt
    }

    /// What the record holds in memory, roughly, for the history's byte limit.
    var byteCount: Int {
        256 + path.utf8.count + (payload?.count ?? 0) + (description?.utf8.count ?? 0) + (fault?.utf8.count ?? 0) + senderDetailsBytes
            + (certificateSubject?.utf8.count ?? 0) + (certificateTopics?.reduce(0) { $0 + $1.utf8.count } ?? 0)
            + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
    }

    var topic: String? { headers.first { $0.name == "apns-topic" }?.value }

    /// The record as the admin API and the inspector's stream show it; `group` is the group the stored
    /// notification is in now, when the caller looked it up.
    func json(now: Date, group: String? = nil) -> JSONValue {
        var object = JSONObject([
            ("id", .integer(Int64(id))),
            ("receivedAt", .string(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(receivedAt))),
            ("durationMicroseconds", .integer(microseconds)),
            ("connection", .object(JSONObject([
                ("client", client.map(JSONValue.string) ?? .null), ("httpVersion", .string(httpVersion)), ("tls", .bool(tls)),
                ("environment", .string(environment.rawValue)),
            ]))),
            ("method", .string(method)),
            ("path", .string(path)),
            ("deviceToken", deviceToken.map(JSONValue.string) ?? .null),
            ("topic", topic.map(JSONValue.string) ?? .null),
            ("headers", .object(JSONObject(headers.map { ($0.name, JSONValue.string($0.value)) }))),
        ])
        if let tokenKeyID, let tokenIssuer {
            object["providerToken"] = ProviderToken.inspectorJSON(keyID: tokenKeyID, issuer: tokenIssuer, issuedAt: tokenIssuedAt, now: now)
        }
        if let certificateSubject, let certificateTopics {
            object["certificate"] = .object(JSONObject([
                ("subject", .string(certificateSubject)), ("topics", .array(certificateTopics.map(JSONValue.string))),
            ]))
        }
        // What authenticated the request: a certificate makes any token on its connection irrelevant.
        object["authentication"] = .string(certificateSubject != nil ? "certificate" : tokenKeyID != nil ? "token" : "none")
        if let payload {
            let text = String(decoding: payload, as: UTF8.self)
            // Valid JSON is shown as JSON; anything else as text, as far as it is text.
            if let value = try? JSONParser.parse(payload) { object["payload"] = value } else { object["payloadText"] = .string(text) }
        }
        var answer = JSONObject([("status", .integer(Int64(status))), ("apnsID", .string(messageID))])
        if let uniqueID { answer["uniqueID"] = .string(uniqueID) }
        if let reason { answer["reason"] = .string(reason) }
        if let description { answer["description"] = .string(description) }
        // No status: a fault cut the request off unanswered.
        if status == 0 { answer["status"] = .null }
        if let fault { answer["fault"] = .string(fault) }
        object["answer"] = .object(answer)
        if let storedApp, let storedIdentifier {
            var stored = JSONObject([("app", .string(storedApp)), ("identifier", .string(storedIdentifier))])
            if let group { stored["group"] = .string(group) }
            if let arrival { stored["arrival"] = .string(arrival) }
            object["notification"] = .object(stored)
        }
        if let senderDetails { object[senderDetails.member] = senderDetails.value }
        if let storedApp, let eventAction {
            object["event"] = .object(JSONObject([("app", .string(storedApp)), ("action", .string(eventAction))]))
        }
        return .object(object)
    }
}

/// What only a record's sender has (``SenderRequestRecord/senderDetails``), shown as the record's member `member`.
struct SenderDetails: Sendable {
    var member: String
    var value: JSONValue

    init(_ member: String, _ value: JSONValue) {
        self.member = member
        self.value = value
    }
}
