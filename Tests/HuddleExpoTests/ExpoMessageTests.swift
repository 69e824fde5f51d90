import Foundation
import HuddleCore
import HuddleExpo
import Testing

/// Expo's message format as the push API reads it, its request errors, tickets and receipts, and what Expo sends
/// APNs and FCM for a message.
struct ExpoMessageTests {
    static func request(_ text: String) throws(ExpoRequestError) -> ExpoPushRequest {
        let json: JSONValue
        do { json = try JSONParser.parse(Array(text.utf8)) } catch { throw ExpoRequestError(.validationError, "\(error)") }
        return try ExpoPushRequest(json: json)
    }

    static func refusal(_ text: String) -> ExpoRequestError? {
        do {
            _ = try request(text)
            return nil
        } catch {
            return error
        }
    }

    static let token = "ExponentPushToken[abcdefghijklmnopqrstuv]"

    @Test func tokensNameAnInstallationIDInEitherSpelling() {
        #expect(ExpoPushToken.token(installationID: "abcdefghijklmnopqrstuv") == Self.token)
        #expect(ExpoPushToken.installationID(of: Self.token) == "abcdefghijklmnopqrstuv")
        #expect(ExpoPushToken.installationID(of: "ExpoPushToken[abc-_DEF123]") == "abc-_DEF123")
        #expect(ExpoPushToken.installationID(of: "ExponentPushToken[]") == nil)
        #expect(ExpoPushToken.installationID(of: "ExponentPushToken[a:b]") == nil)
        #expect(ExpoPushToken.installationID(of: "ExponentPushToken[abc") == nil)
        #expect(ExpoPushToken.installationID(of: "abcdefghijklmnopqrstuv") == nil)
        #expect(ExpoPushToken.installationID(of: "ExponentPushToken[" + String(repeating: "a", count: 65) + "]") == nil)
        #expect(ExpoPushToken.defaultProject == "@huddle/default")
    }

    @Test func anAppsExpoProjectIsOwnerAndSlug() throws {
        for good in ["@acme/chat", "@a.b/c-d_e"] { #expect(FirebaseInstallation.isValidExpoProject(good), "\(good)") }
        for bad in ["acme/chat", "@acme", "@acme/chat/x", "@/chat", "@acme/", "@acme/ch at", "@" + String(repeating: "a", count: 99) + "/b"] {
            #expect(!FirebaseInstallation.isValidExpoProject(bad), "\(bad)")
        }
        var installation = FirebaseInstallation()
        try installation.update(json: JSONReader(JSONParser.parse(Array(#"{"expoProject": "@acme/chat"}"#.utf8))))
        #expect(installation.expoProject == "@acme/chat")
        #expect(throws: JSONReadError.self) { try installation.update(json: JSONReader(JSONParser.parse(Array(#"{"expoProject": "chat"}"#.utf8)))) }
    }

    @Test func everyFieldOfExposFormatIsRead() throws {
        let push = try Self.request(
            """
            {"to": "\(Self.token)", "title": "Hi", "body": "There", "subtitle": "Sub", "data": {"id": 7}, "sound": "bells.wav",
             "badge": 3, "ttl": 60, "expiration": 1900000000, "priority": "high", "channelId": "chat", "categoryId": "reply",
             "mutableContent": true, "_contentAvailable": true, "interruptionLevel": "time-sensitive", "icon": "ic", "richContent": {"image": "https://x/i.png"},
             "collapseId": "c1", "tag": "t1", "_displayInForeground": true, "someoneElses": 1}
            """)
        let message = try #require(push.messages.first)
        #expect(message.to == [Self.token] && message.toIsSingle && push.answersSingleTicket)
        #expect(message.title == "Hi" && message.body == "There" && message.subtitle == "Sub")
        #expect(message.data?["id"] == .integer(7))
        #expect(message.sound == .named("bells.wav") && message.badge == 3 && message.ttl == 60 && message.expiration == 1_900_000_000)
        #expect(message.priority == .high && message.channelID == "chat" && message.categoryID == "reply")
        #expect(message.mutableContent && message.contentAvailable && message.interruptionLevel == .timeSensitive)
        #expect(message.icon == "ic" && message.image == "https://x/i.png" && message.collapseID == "c1" && message.tag == "t1")
    }

    @Test func aWrongFieldIsAValidationErrorAtItsKeyPath() {
        #expect(Self.refusal(#"[{"to": "\#(Self.token)"}, {"to": "\#(Self.token)", "priority": "urgent"}]"#)?.message
            == "\"[1].priority\" expected one of default, normal, high")
        #expect(Self.refusal(#"{"to": "\#(Self.token)", "badge": "1"}"#)?.message == "\"badge\" expected an integer, found a string")
        #expect(Self.refusal(#"{"to": "\#(Self.token)", "badge": -1}"#)?.code == .validationError)
        #expect(Self.refusal(#"{"to": "\#(Self.token)", "ttl": 99999999999}"#)?.code == .validationError)
        #expect(Self.refusal(#"{"title": "no one"}"#)?.message == "\"to\" is missing")
        #expect(Self.refusal(#"{"to": 7}"#)?.message == "\"to\" expected a push token or an array of push tokens, found a number")
        #expect(Self.refusal(#"{"to": ["\#(Self.token)", 7]}"#)?.message == "\"to[1]\" expected a string, found a number")
        #expect(Self.refusal(#"{"to": "\#(Self.token)", "interruptionLevel": "loud"}"#)?.code == .validationError)
        #expect(Self.refusal(#""hello""#)?.httpStatus == 400)
        #expect(Self.refusal("[7]")?.message == "\"[0]\" expected a message object, found a number")
    }

    @Test func moreThanAHundredNotificationsCountingEachTokenIsRefused() throws {
        let hundred = Array(repeating: "\"\(Self.token)\"", count: 100).joined(separator: ",")
        #expect(try Self.request(#"{"to": [\#(hundred)]}"#).recipients.count == 100)
        let refusal = Self.refusal(#"[{"to": [\#(hundred)]}, {"to": "\#(Self.token)"}]"#)
        #expect(refusal?.code == .tooManyNotifications && refusal?.httpStatus == 400)
        let many = Array(repeating: #"{"to": "\#(Self.token)"}"#, count: 101).joined(separator: ",")
        #expect(Self.refusal("[\(many)]")?.code == .tooManyNotifications)
        // A message with an empty to sends nothing, yet counts: 101 of them are past the limit, as 80,000 would be.
        let empty = Array(repeating: #"{"to": []}"#, count: 101).joined(separator: ",")
        #expect(Self.refusal("[\(empty)]")?.code == .tooManyNotifications)
        #expect(try Self.request(#"[{"to": []}]"#).recipients.isEmpty)
    }

    @Test func textBytesCountWhatEveryProviderPayloadCarries() throws {
        let message = try #require(try Self.request(#"{"to": "t", "title": "ab", "subtitle": "é", "body": "c", "data": {"k": 1}}"#).messages.first)
        #expect(message.textBytes == 2 + 2 + 1 + #"{"k":1}"#.utf8.count)
        #expect(message.apnsPayload(project: "@o/s").jsonUTF8().count > message.textBytes)
        #expect(JSONValue.object(JSONObject(message.fcmData(project: "@o/s").map { ($0.key, .string($0.value)) })).jsonUTF8().count > message.textBytes)
    }

    @Test func recipientsComeInRequestOrderAndOnlyOneStringToAnswersOneTicket() throws {
        let push = try Self.request(#"[{"to": ["a", "b"]}, {"to": "c"}]"#)
        #expect(push.recipients.map(\.token) == ["a", "b", "c"])
        #expect(!push.answersSingleTicket)
        #expect(try !Self.request(#"{"to": ["a"]}"#).answersSingleTicket)
        #expect(try !Self.request(#"[{"to": "a"}]"#).answersSingleTicket)
    }

    @Test func receiptRequestsTakeAtMostAThousandIDs() throws {
        #expect(try ExpoReceiptRequest(json: JSONParser.parse(Array(#"{"ids": ["a", "b"]}"#.utf8))).ids == ["a", "b"])
        let ids = JSONValue.object(JSONObject([("ids", .array(Array(repeating: "x", count: 1_001)))]))
        #expect(throws: ExpoRequestError.self) { try ExpoReceiptRequest(json: ids) }
        do {
            _ = try ExpoReceiptRequest(json: ids)
        } catch {
            #expect(error.code == .tooManyReceipts)
        }
        do {
            _ = try ExpoReceiptRequest(json: JSONParser.parse(Array(#"{"ids": [1]}"#.utf8)))
            Issue.record("a number id was taken")
        } catch let error as ExpoRequestError {
            #expect(error.message == "\"ids[0]\" expected a string, found a number")
        }
    }

    @Test func errorsTicketsAndReceiptsAreWrittenAsExpoWritesThem() {
        #expect(ExpoRequestError(.tooManyExperienceIDs, "m", details: ["@a/b": ["t"]]).json.jsonText()
            == #"{"errors":[{"code":"PUSH_TOO_MANY_EXPERIENCE_IDS","message":"m","details":{"@a/b":["t"]}}]}"#)
        #expect(ExpoTicket.ok(id: "1").json.jsonText() == #"{"status":"ok","id":"1"}"#)
        #expect(ExpoTicket.error(.deviceNotRegistered, message: "gone", token: "T").json.jsonText()
            == #"{"status":"error","message":"gone","details":{"error":"DeviceNotRegistered","expoPushToken":"T"}}"#)
        #expect(DeliveryReceipt(id: "1", createdAt: Date()).expoJSON.jsonText() == #"{"status":"ok"}"#)
        #expect(DeliveryReceipt(id: "1", createdAt: Date(), error: "MessageTooBig", message: "big").expoJSON.jsonText()
            == #"{"status":"error","message":"big","details":{"error":"MessageTooBig"}}"#)
    }

    @Test func anIPhoneGetsTheAPNsPushExpoSends() throws {
        let message = try #require(try Self.request(
            #"{"to": "t", "title": "T", "subtitle": "S", "body": "B", "data": {"k": 1}, "badge": 2, "sound": "default", "categoryId": "c", "mutableContent": true, "interruptionLevel": "passive", "collapseId": "x", "ttl": 30}"#
        ).messages.first)
        #expect(message.apnsPayload(project: "@o/s").jsonText()
            == #"{"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":2,"sound":"default","category":"c","mutable-content":1,"interruption-level":"passive"},"body":{"k":1},"experienceId":"@o/s","scopeKey":"@o/s"}"#)
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(message.apnsHeaders(now: now) == ["apns-push-type": "alert", "apns-priority": "10", "apns-expiration": "1030", "apns-collapse-id": "x"])
        let background = try #require(try Self.request(#"{"to": "t", "data": {"k": 1}, "_contentAvailable": true, "priority": "high", "ttl": 0}"#).messages.first)
        #expect(background.apnsHeaders(now: now) == ["apns-push-type": "background", "apns-priority": "5", "apns-expiration": "0"])
        let normal = try #require(try Self.request(#"{"to": "t", "body": "b", "priority": "normal", "expiration": 5000}"#).messages.first)
        #expect(normal.apnsHeaders(now: now) == ["apns-push-type": "alert", "apns-priority": "5", "apns-expiration": "5000"])
    }

    @Test func androidGetsTheDataMessageExpoSendsAndExpoNotificationsPostsIt() throws {
        let message = try #require(try Self.request(
            #"{"to": "t", "title": "T", "body": "B", "data": {"k": 1}, "channelId": "chat", "tag": "g", "badge": 4, "priority": "high"}"#
        ).messages.first)
        #expect(message.fcmData(project: "@o/s") == [
            "title": "T", "message": "B", "body": #"{"k":1}"#, "channelId": "chat", "tag": "g", "badge": "4", "experienceId": "@o/s",
            "scopeKey": "@o/s",
        ])
        #expect(message.isHighPriorityOnAndroid)
        let request = try #require(message.androidRequest(messageID: "m"))
        #expect(request.identifier == "g")
        #expect(request.content.title == .plain("T") && request.content.body == .plain("B"))
        #expect(request.content.android?.channelID == "chat" && request.content.android?.count == 4)
        #expect(request.content.userInfo["k"] == .integer(1))
        let dataOnly = try #require(try Self.request(#"{"to": "t", "data": {"k": 1}}"#).messages.first)
        #expect(dataOnly.androidRequest(messageID: "m") == nil)
        #expect(!dataOnly.isHighPriorityOnAndroid)
    }
}
