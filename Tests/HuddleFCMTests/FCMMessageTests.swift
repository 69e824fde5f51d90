import Foundation
import HuddleCore
import HuddleFCM
import Testing

/// FCM's `messages:send` body read as FCM reads it (docs/fcm.md): every field of `Message`, in snake_case or
/// lowerCamelCase, and each refusal as FCM answers it, naming the field.
struct FCMMessageTests {
    static func request(_ text: String) throws -> FCMSendRequest {
        try FCMSendRequest(json: try JSONParser.parse(text))
    }

    static func refusal(_ text: String) -> FCMError? {
        do {
            _ = try request(text)
            return nil
        } catch let error as FCMError {
            return error
        } catch {
            return nil
        }
    }

    static let token = "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx"

    /// Every text of the notification that reaches the phone counts toward the 4 KB limit, not the title and body alone
    /// (a tag, localization arguments or an image added tens of kilobytes to each stored notification).
    @Test func everyTextOfTheNotificationCountsTowardTheLimit() throws {
        let big = String(repeating: "x", count: 4_090)
        for field in [#""tag": "\#(big)""#, #""title_loc_key": "K", "title_loc_args": ["\#(big)", "y"]"#, #""image": "https://a/\#(big)""#,
            #""icon": "\#(big)""#, #""click_action": "\#(big)""#, #""ticker": "\#(big)""#]
        {
            let refusal = Self.refusal(#"{"message": {"token": "\#(Self.token)", "notification": {"title": "0123456789ABCDEF"}, "android": {"notification": {\#(field)}}}}"#)
            #expect(refusal?.fieldViolations.first?.description.contains("too big") == true, "\(field.prefix(20))")
        }
        let fits = try Self.request(#"{"message": {"token": "\#(Self.token)", "android": {"notification": {"title": "t", "tag": "\#(String(repeating: "x", count: 256))"}}}}"#)
        #expect(fits.message.payloadSize == 257)
    }

    @Test func aFullAndroidMessageIsReadWhole() throws {
        let request = try Self.request("""
            {"validate_only": true, "message": {"token": "\(Self.token)", "data": {"order": "42"},
              "notification": {"title": "Order 42", "body": "On its way", "image": "https://example.com/a.png"},
              "android": {"collapse_key": "orders", "priority": "high", "ttl": "3.5s", "restricted_package_name": "com.example.shop",
                "data": {"order": "43"}, "direct_boot_ok": true, "fcm_options": {"analytics_label": "orders"},
                "notification": {"tag": "order-42", "channel_id": "orders", "notification_count": 3, "title_loc_key": "ORDER_TITLE",
                  "title_loc_args": ["42"], "visibility": "SECRET", "notification_priority": "PRIORITY_HIGH", "event_time": "2026-06-10T07:30:00Z",
                  "color": "#FF8800", "sticky": true, "vibrate_timings": ["0.5s", "1s"]}},
              "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"thread-id": "orders"}}},
              "webpush": {"headers": {"TTL": "15"}}, "fcm_options": {"analytics_label": "all"}}}
            """)
        #expect(request.validateOnly)
        let message = request.message
        #expect(message.target == .token(Self.token))
        #expect(message.data == ["order": "42"] && message.android?.data == ["order": "43"])
        let android = try #require(message.android)
        #expect(android.priority == .high && android.timeToLive == .milliseconds(3_500) && android.restrictedPackageName == "com.example.shop")
        let notification = try #require(android.notification)
        #expect(notification.tag == "order-42" && notification.channelID == "orders" && notification.notificationCount == 3)
        #expect(notification.visibility == .secret && notification.notificationPriority == .high && notification.titleLocArgs == ["42"])
        #expect(message.apns?.headers == ["apns-priority": "10"] && message.apns?.payload?["aps"]?["thread-id"] == .string("orders"))
    }

    @Test func lowerCamelCaseNamesAreReadAsTheProto3JSONMappingAllows() throws {
        let message = try Self.request(#"{"validateOnly": false, "message": {"topic": "news", "android": {"collapseKey": "k", "notification": {"channelId": "c", "notificationCount": "2"}}}}"#).message
        #expect(message.target == .topic("news") && message.android?.collapseKey == "k")
        #expect(message.android?.notification?.channelID == "c" && message.android?.notification?.notificationCount == 2)
    }

    struct Refusal: Sendable, CustomStringConvertible {
        var name: String
        var message: String
        var status: Int
        var errorCode: String?
        var field: String
        var description: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "no target", message: #"{"message": {"data": {"a": "b"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message"),
        Refusal(name: "two targets", message: #"{"message": {"topic": "a", "condition": "'a' in topics"}}"#, status: 400, errorCode: nil, field: "message"),
        Refusal(name: "a data value that is a number", message: #"{"message": {"topic": "a", "data": {"ok": "1", "n": 12}}}"#, status: 400, errorCode: nil, field: "message.data[1].value"),
        Refusal(name: "a reserved data key", message: #"{"message": {"topic": "a", "data": {"google.sent_time": "1"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.data"),
        Refusal(name: "from as a data key", message: #"{"message": {"topic": "a", "data": {"from": "me"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.data"),
        Refusal(name: "a ttl as a number", message: #"{"message": {"topic": "a", "android": {"ttl": 3600}}}"#, status: 400, errorCode: nil, field: "message.android.ttl"),
        Refusal(name: "a ttl over four weeks", message: #"{"message": {"topic": "a", "android": {"ttl": "2419201s"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.android.ttl"),
        Refusal(name: "a ttl without its unit", message: #"{"message": {"topic": "a", "android": {"ttl": "3600"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.android.ttl"),
        Refusal(name: "an unknown field", message: #"{"message": {"topic": "a", "android": {"colapse_key": "x"}}}"#, status: 400, errorCode: nil, field: "message.android"),
        Refusal(name: "a bad package name", message: #"{"message": {"topic": "a", "android": {"restricted_package_name": "shop"}}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.android.restricted_package_name"),
        Refusal(name: "a topic with its prefix", message: #"{"message": {"topic": "/topics/news"}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.topic"),
        Refusal(name: "a bad priority", message: #"{"message": {"topic": "a", "android": {"priority": "urgent"}}}"#, status: 400, errorCode: nil, field: "message.android.priority"),
        Refusal(name: "a bad visibility", message: #"{"message": {"topic": "a", "android": {"notification": {"visibility": "HIDDEN"}}}}"#, status: 400, errorCode: nil, field: "message.android.notification.visibility"),
        Refusal(name: "a bad condition", message: #"{"message": {"condition": "!('a' in topics)"}}"#, status: 400, errorCode: "INVALID_ARGUMENT", field: "message.condition"),
    ]

    /// Google's error-code page, "an invalid registration token": 400 `INVALID_ARGUMENT` with the FCM error code and no
    /// field violation. A token has FCM's shape (an installation ID, a colon and more); an installation ID (`fid`) of
    /// any text is looked up, as FCM answers even `not-a-fid` `UNREGISTERED`.
    @Test func aMalformedTokenIsRefusedAsGooglesPageShows() throws {
        for token in ["not-a-token", "not a token!", ":APA91b", "abc:", String(repeating: "a", count: 5_000)] {
            let error = try #require(Self.refusal(#"{"message": {"token": "\#(token)"}}"#), "\(token.prefix(20))")
            #expect(error.json == (try JSONParser.parse(#"""
                {"error": {"code": 400, "message": "The registration token is not a valid FCM registration token", "status": "INVALID_ARGUMENT",
                  "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "INVALID_ARGUMENT"}]}}
                """#)))
        }
        #expect(try Self.request(#"{"message": {"token": "abc:APA91b-_x"}}"#).message.target == .token("abc:APA91b-_x"))
        #expect(try Self.request(#"{"message": {"fid": "not-a-fid"}}"#).message.target == .installation("not-a-fid"))
        #expect(Self.refusal(#"{"message": {"fid": "abc", "token": "abc:APA91b"}}"#)?.httpStatus == 400)
    }

    @Test(arguments: refusals)
    func eachRefusalIsAnsweredAsFCMAnswersItNamingTheField(_ refusal: Refusal) throws {
        let error = try #require(Self.refusal(refusal.message))
        #expect(error.httpStatus == refusal.status && error.status == "INVALID_ARGUMENT")
        #expect(error.code?.rawValue == refusal.errorCode)
        #expect(error.fieldViolations.first?.field == refusal.field, "\(error)")
        // The body is google.rpc.Status, with the FcmError detail when FCM itself refused it.
        let body = error.json
        #expect(body["error"]?["code"] == .integer(Int64(refusal.status)) && body["error"]?["status"] == .string("INVALID_ARGUMENT"))
        let types = body["error"]?["details"]?.arrayValue?.compactMap { $0["@type"]?.stringValue } ?? []
        #expect(types.contains("type.googleapis.com/google.rpc.BadRequest"))
        #expect(types.contains("type.googleapis.com/google.firebase.fcm.v1.FcmError") == (refusal.errorCode != nil))
    }

    @Test func aMessageTooBigIsRefusedAtFourKilobytesAndAtTwoForATopic() throws {
        let data = String(repeating: "x", count: 3_000)
        #expect(Self.refusal(#"{"message": {"token": "\#(Self.token)", "data": {"k": "\#(data)"}}}"#) == nil)
        let topic = try #require(Self.refusal(#"{"message": {"topic": "news", "data": {"k": "\#(data)"}}}"#))
        #expect(topic.fieldViolations.first?.field == "message" && topic.description.contains("more than the 2048"))
        let big = String(repeating: "x", count: 4_100)
        #expect(Self.refusal(#"{"message": {"token": "\#(Self.token)", "data": {"k": "\#(big)"}}}"#)?.fieldViolations.first?.field == "message")
    }

    @Test(arguments: FCMError.Code.allCases)
    func everyErrorCodeHasItsHTTPStatusAndDetail(_ code: FCMError.Code) {
        let error = FCMError(code, "x")
        let expected: [FCMError.Code: (Int, String)] = [
            .invalidArgument: (400, "INVALID_ARGUMENT"), .unregistered: (404, "NOT_FOUND"), .senderIDMismatch: (403, "PERMISSION_DENIED"),
            .quotaExceeded: (429, "RESOURCE_EXHAUSTED"), .unavailable: (503, "UNAVAILABLE"), .internal: (500, "INTERNAL"),
            .thirdPartyAuthError: (401, "UNAUTHENTICATED"),
        ]
        #expect(error.httpStatus == expected[code]?.0 && error.status == expected[code]?.1)
        #expect(error.json["error"]?["details"]?.arrayValue?.first?["errorCode"] == .string(code.rawValue))
    }
}

/// FCM's condition language: topics, `&&`, `||`, parentheses, five topics at most, left to right.
struct TopicConditionTests {
    @Test func aConditionIsEvaluatedAgainstADevicesTopics() throws {
        let condition = try TopicCondition("'TopicA' in topics && ('TopicB' in topics || 'TopicC' in topics)")
        #expect(condition.topics == ["TopicA", "TopicB", "TopicC"])
        #expect(condition.matches(subscribedTo: ["TopicA", "TopicC"]))
        #expect(!condition.matches(subscribedTo: ["TopicB", "TopicC"]))
    }

    /// Google: "evaluates the expression from left to right": `&&` binds no tighter than `||`.
    @Test func withoutParenthesesItIsEvaluatedFromLeftToRight() throws {
        let condition = try TopicCondition("'a' in topics || 'b' in topics && 'c' in topics")
        #expect(!condition.matches(subscribedTo: ["a"]))
        #expect(condition.matches(subscribedTo: ["a", "c"]))
    }

    @Test(arguments: [
        "!('a' in topics)", "'a' in topics &&", "('a' in topics", "'a b' in topics", "'a' in topic", "a in topics", "",
        "'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics && 'e' in topics && 'f' in topics",
        String(repeating: "(", count: 600) + "'a' in topics" + String(repeating: ")", count: 600),
    ])
    func aConditionFCMRefusesIsRefused(_ text: String) {
        #expect(throws: FCMError.self) { try TopicCondition(text) }
    }

    @Test func fiveTopicsAreTheLimit() throws {
        let five = try TopicCondition("'a' in topics && 'b' in topics && 'c' in topics && 'd' in topics && 'e' in topics")
        #expect(five.topics.count == 5)
    }
}
