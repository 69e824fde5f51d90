import Foundation
import HuddleCore
import HuddleFCM
import Testing

/// What a message becomes on each platform (docs/fcm.md): the notification Android's Firebase SDK posts, and the APNs
/// push FCM makes of it for an iPhone.
struct FCMDeliveryTests {
    static func message(_ text: String) throws -> FCMMessage {
        try FCMSendRequest(json: try JSONParser.parse(text)).message
    }

    @Test func androidsKeysBeatTheMessagesAndALiteralTextBeatsItsKey() throws {
        let message = try Self.message("""
            {"message": {"token": "f:APA91b", "notification": {"title": "Common", "body": "Common body", "image": "https://x/i.png"},
             "data": {"a": "1"},
             "android": {"data": {"b": "2"}, "notification": {"title": "Android", "body_loc_key": "ignored", "body": "",
               "title_loc_key": "unused", "channel_id": "chats", "tag": "t1", "visibility": "SECRET", "notification_count": 0,
               "event_time": "2026-06-10T07:30:00Z", "sticky": true}}}}
            """)
        let request = try #require(message.androidNotification(messageID: "0:1%2"))
        #expect(request.identifier == "t1")
        #expect(request.content.title == .plain("Android"))
        #expect(request.content.body == .localized(key: "ignored", arguments: []))
        let android = try #require(request.content.android)
        #expect(android.channelID == "chats" && android.tag == "t1" && android.visibility == .secret && android.sticky)
        #expect(android.count == nil)
        #expect(android.image == "https://x/i.png")
        #expect(android.eventTime == Date(timeIntervalSince1970: 1_781_076_600))
        #expect(request.content.userInfo == JSONObject([("b", .string("2"))]))
    }

    @Test func aMessageWithoutTextIsADataMessageAndEachOtherIsNewWithoutATag() throws {
        #expect(try Self.message(#"{"message": {"token": "f:APA91b", "data": {"k": "v"}}}"#).androidNotification(messageID: "m") == nil)
        let plain = try Self.message(#"{"message": {"token": "f:APA91b", "notification": {"body": "Hi"}}}"#)
        #expect(plain.androidNotification(messageID: "m1")?.identifier == "m1")
        #expect(plain.androidNotification(messageID: "m1")?.content.android?.visibility == .private)
    }

    @Test func theAPNsPayloadTakesTheNotificationWhereTheApsLacksItAndDataBesideIt() throws {
        let message = try Self.message("""
            {"message": {"token": "f:APA91b", "notification": {"title": "T", "body": "B"}, "data": {"k": "v", "kept": "data"},
             "apns": {"headers": {"apns-collapse-id": "c"}, "payload": {"aps": {"alert": {"title": "Own"}, "thread-id": "x"}, "kept": "payload"}}}}
            """)
        let payload = message.apnsPayload
        #expect(payload["aps"]?["alert"] == .object(JSONObject([("title", .string("Own")), ("body", .string("B"))])))
        #expect(payload["aps"]?["thread-id"] == .string("x"))
        #expect(payload["k"] == .string("v") && payload["kept"] == .string("payload"))
        let now = Date(timeIntervalSince1970: 1_000)
        let headers = message.apnsHeaders(now: now)
        #expect(headers == [
            "apns-collapse-id": "c", "apns-priority": "10", "apns-push-type": "alert", "apns-expiration": String(1_000 + 30 * 86_400),
        ])
        let dataOnly = try Self.message(#"{"message": {"token": "f:APA91b", "data": {"k": "v"}}}"#)
        #expect(dataOnly.apnsHeaders(now: now)["apns-priority"] == "5" && dataOnly.apnsHeaders(now: now)["apns-push-type"] == "background")
    }

    @Test func messageIDsAreShapedAsFCMsAndUnique() {
        let ids = (0..<100).map { _ in FCMMessage.newMessageID(now: Date(timeIntervalSince1970: 1_500_415_314.455276)) }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { $0.hasPrefix("0:1500415314455276%") && $0.count == "0:1500415314455276%".count + 16 })
    }
}

/// The JWT bearer grant's assertion and the access tokens it gives (docs/fcm.md, "Authentication").
struct ServiceAccountAssertionTests {
    static let keys = try! ServiceAccountKeys.make()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let account = ServiceAccountRecord(
        keyID: "abc123", project: "demo", clientEmail: "huddle@demo.iam.gserviceaccount.com", publicKeyPEM: keys.publicKeyPEM, createdAt: now)

    static func assertion(
        keyID: String = "abc123", email: String = account.clientEmail, scopes: [String] = ["https://www.googleapis.com/auth/cloud-platform"],
        audience: String = ServiceAccountAssertion.googleTokenAudience, issuedAt: Date = now, key: String = keys.privateKeyPEM
    ) throws -> ServiceAccountAssertion {
        try ServiceAccountAssertion(parsing: try ServiceAccountAssertion.sign(
            keyID: keyID, clientEmail: email, scopes: scopes, audience: audience, issuedAt: issuedAt, privateKeyPEM: key))
    }

    static func refusal(_ assertion: ServiceAccountAssertion, at time: Date = now) -> OAuthError? {
        do {
            try assertion.verify(for: account, now: time)
            return nil
        } catch {
            return error
        }
    }

    /// An access token is checked again as the grant checked its assertion (its signature once): one made of an
    /// assertion the grant refuses is no token.
    @Test func aTokensAssertionMeetsTheGrantsClaimsOnEveryUse() throws {
        let fair = try Self.assertion()
        #expect(throws: Never.self) { try fair.checkClaims(for: Self.account, now: Self.now) }
        #expect(throws: OAuthError.self) { try fair.checkClaims(for: Self.account, now: Self.now.addingTimeInterval(7_200)) }
        let foreign = try Self.assertion(audience: "https://evil.example/oauth")
        #expect(throws: OAuthError.self) { try foreign.checkClaims(for: Self.account, now: Self.now) }
        let ahead = try Self.assertion(issuedAt: Self.now.addingTimeInterval(365 * 86_400))
        #expect(throws: OAuthError.self) { try ahead.checkClaims(for: Self.account, now: Self.now) }
        let otherAccount = ServiceAccountRecord(
            keyID: "abc123", project: "demo", clientEmail: "someone@else.iam.gserviceaccount.com", publicKeyPEM: Self.keys.publicKeyPEM,
            createdAt: Self.now)
        #expect(throws: OAuthError.self) { try fair.checkClaims(for: otherAccount, now: Self.now) }
    }

    @Test func anAssertionSignedByTheAccountsKeyIsGrantedAndItsTokenCarriesIt() throws {
        let assertion = try Self.assertion()
        #expect(Self.refusal(assertion) == nil)
        #expect(assertion.allowsMessaging)
        let token = FCMAccessToken.token(for: assertion)
        #expect(token.hasPrefix("ya29."))
        #expect(FCMAccessToken.assertion(in: token) == assertion)
        #expect(FCMAccessToken.assertion(in: "ya29.someone-elses") == nil)
        // golang.org/x/oauth2 puts the token_uri in aud.
        #expect(Self.refusal(try Self.assertion(audience: "http://127.0.0.1:8443/token")) == nil)
    }

    @Test func eachRuleOfTheGrantRefusesAsGoogleDoes() throws {
        let other = try ServiceAccountKeys.make()
        #expect(Self.refusal(try Self.assertion(key: other.privateKeyPEM))?.errorDescription == "Invalid JWT Signature.")
        #expect(Self.refusal(try Self.assertion(email: "someone@else"))?.error == "invalid_grant")
        #expect(Self.refusal(try Self.assertion(audience: "https://example.com/"))?.error == "invalid_grant")
        #expect(Self.refusal(try Self.assertion(), at: Self.now.addingTimeInterval(3_600 + 301))?.error == "invalid_grant")
        #expect(Self.refusal(try Self.assertion(issuedAt: Self.now.addingTimeInterval(600)))?.error == "invalid_grant")
        #expect(Self.refusal(try Self.assertion(scopes: []))?.error == "invalid_scope")
        #expect(try !Self.assertion(scopes: ["https://www.googleapis.com/auth/datastore"]).allowsMessaging)
        #expect(throws: OAuthError.self) { try ServiceAccountAssertion(parsing: "a.b") }
        #expect(throws: OAuthError.self) { try ServiceAccountAssertion(parsing: String(repeating: "a", count: 9_000)) }
    }
}
