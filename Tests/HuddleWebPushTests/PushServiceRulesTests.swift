import Foundation
import HuddleCore
import HuddleWebPush
import Testing

/// RFC 8030's headers as each service reads them, each refusal in each service's words, and Declarative Web Push as
/// WebKit reads it.
struct PushServiceRulesTests {
    static func headers(_ fields: [String: String], service: WebPushService = .apple, bodyLength: Int = 100) throws(WebPushRefusal)
        -> PushMessageHeaders
    {
        try PushMessageHeaders(service: service, bodyLength: bodyLength) { fields[$0] }
    }

    static func refusal(_ fields: [String: String], service: WebPushService = .apple, bodyLength: Int = 100) -> WebPushRefusal? {
        do {
            _ = try headers(fields, service: service, bodyLength: bodyLength)
            return nil
        } catch {
            return error
        }
    }

    static let good = ["ttl": "60", "content-encoding": "aes128gcm"]

    @Test func ttlIsRequiredAndLoweredToTheServicesLongest() throws {
        #expect(Self.refusal(["content-encoding": "aes128gcm"]) == .missingTTL)
        #expect(Self.refusal(["ttl": "soon", "content-encoding": "aes128gcm"]) == .badTTL("soon"))
        #expect(Self.refusal(["ttl": "-1", "content-encoding": "aes128gcm"]) == .negativeTTL)
        #expect(try Self.headers(["ttl": "0", "content-encoding": "aes128gcm"]).ttl == 0)
        #expect(try Self.headers(["ttl": "99999999999999999999", "content-encoding": "aes128gcm"], service: .mozilla).ttl == 2_592_000)
        #expect(try Self.headers(["ttl": "3000000", "content-encoding": "aes128gcm"], service: .fcm).ttl == 2_419_200)
    }

    @Test func urgencyIsOneOfFourAndMozillaReadsNone() throws {
        #expect(try Self.headers(Self.good.merging(["urgency": "very-low"]) { $1 }).urgency == .veryLow)
        #expect(Self.refusal(Self.good.merging(["urgency": "urgent"]) { $1 }) == .badUrgency("urgent"))
        #expect(try Self.headers(Self.good.merging(["urgency": "urgent"]) { $1 }, service: .mozilla).urgency == nil)
    }

    @Test(arguments: [
        // topic, Apple, Mozilla, FCM: nil when taken
        ("order-42", nil, nil, nil), ("abcde", WebPushRefusal.topicAlphabet, nil, nil), ("abc=", .topicAlphabet, nil, .topicAlphabet),
        ("a b", .topicAlphabet, .topicAlphabet, .topicAlphabet), (String(repeating: "a", count: 33), .topicTooLong, .topicTooLong, .topicTooLong),
        (String(repeating: "a", count: 32), nil, nil, nil), ("", .topicAlphabet, .topicAlphabet, .topicAlphabet),
    ] as [(String, WebPushRefusal?, WebPushRefusal?, WebPushRefusal?)])
    func topicIsBase64URLOfAtMost32(topic: String, apple: WebPushRefusal?, mozilla: WebPushRefusal?, fcm: WebPushRefusal?) {
        let fields = Self.good.merging(["topic": topic]) { $1 }
        #expect(Self.refusal(fields, service: .apple) == apple)
        #expect(Self.refusal(fields, service: .mozilla) == mozilla)
        #expect(Self.refusal(fields, service: .fcm) == fcm)
    }

    @Test func contentEncodingAndTheLegacyForm() throws {
        #expect(Self.refusal(["ttl": "1"]) == .missingContentEncoding)
        #expect(try Self.headers(["ttl": "1"], bodyLength: 0).coding == PushMessageHeaders.ContentCoding.none)
        #expect(Self.refusal(["ttl": "1", "content-encoding": "gzip"]) == .unknownContentEncoding("gzip"))
        #expect(Self.refusal(["ttl": "1", "content-encoding": "aes128gcm", "encryption": "salt=AAAA"], service: .mozilla) == .saltWithAES128GCM)
        let legacy = ["ttl": "1", "content-encoding": "aesgcm", "encryption": "salt=AAAAAAAAAAAAAAAAAAAAAA", "crypto-key": "dh=BAAA;p256ecdsa=BBBB"]
        #expect(Self.refusal(legacy, service: .apple) == .unknownContentEncoding("aesgcm"))
        #expect(Self.refusal(legacy, service: .mozilla) == nil)
        #expect(Self.refusal(legacy.merging(["encryption": "rs=4096"]) { $1 }, service: .fcm) == .missingSalt)
        #expect(Self.refusal(legacy.filter { $0.key != "encryption" }, service: .mozilla) == .missingEncryptionHeader)
        #expect(Self.refusal(legacy.filter { $0.key != "crypto-key" }, service: .mozilla) == .missingSenderKey)
    }

    @Test func eachServiceWordsARefusalAsItsOwnerDoes() throws {
        let apple = WebPushAnswer(.vapid(.keyMismatch), service: .apple)
        #expect(apple.status == 400 && apple.body == #"{"reason":"VapidPkHashMismatch"}"# && apple.headers["content-type"] == "application/json")
        #expect(WebPushAnswer(.vapid(.badSubject), service: .apple).status == 403)
        #expect(WebPushAnswer(.payloadTooLarge(5000), service: .apple).body == #"{"reason":"PayloadTooLarge"}"#)

        let mozilla = WebPushAnswer(.vapid(.keyMismatch), service: .mozilla)
        #expect(mozilla.status == 401)
        #expect(mozilla.body == #"{"code":401,"errno":109,"error":"Unauthorized","message":"VAPID public key mismatch","more_info":"http://autopush.readthedocs.io/en/latest/http.html#error-codes"}"#)
        let gone = WebPushAnswer(.subscriptionGone, service: .mozilla)
        #expect(gone.status == 410 && gone.headers["cache-control"] == "max-age=86400")
        #expect(WebPushAnswer(.topicTooLong, service: .mozilla).body.contains(#""message":"topic: Topic must be no greater than 32 characters\n""#))

        let fcm = WebPushAnswer(.subscriptionGone, service: .fcm)
        #expect(fcm.status == 410 && fcm.body == "push subscription has unsubscribed or expired.\n" && fcm.body.utf8.count == 47)
        #expect(WebPushAnswer(.vapid(.expired), service: .fcm).body == "token has expired\n")
        #expect(WebPushAnswer(.payloadTooLarge(5000), service: .fcm).status == 400)

        let limited = WebPushAnswer(.tooManyRequests(retryAfter: 30), service: .fcm)
        #expect(limited.status == 429 && limited.headers["retry-after"] == "30")
    }

    @Test func endpointPathsRoundTrip() {
        for service in WebPushService.allCases {
            let path = service.endpointPath(subscriptionID: "abc")
            #expect(WebPushService.endpoint(ofPath: Substring(path))?.service == service)
            #expect(WebPushService.endpoint(ofPath: Substring(path))?.subscriptionID == "abc")
        }
        #expect(WebPushService.endpoint(ofPath: "/web-push/other/abc") == nil)
    }
}

struct DeclarativePushMessageTests {
    static func read(_ text: String) -> DeclarativePushMessage.Reading { DeclarativePushMessage.read(Data(text.utf8)) }

    @Test func aValidMessageIsRead() throws {
        let reading = Self.read("""
            {"web_push": 8030, "notification": {"title": "Order shipped", "navigate": "https://shop.example/orders/42", "body": "Arrives Friday",
             "tag": "order-42", "lang": "en", "dir": "ltr", "silent": false, "data": {"id": 42}, "app_badge": "3"}}
            """)
        guard case .declarative(let message) = reading else { Issue.record("not read: \(reading)"); return }
        #expect(message.title == "Order shipped" && message.body == "Arrives Friday" && message.tag == "order-42" && message.appBadge == 3)
        #expect(!message.mutable && message.data == .object(JSONObject([("id", .integer(42))])))
        guard case .declarative(let numeric) = Self.read(#"{"web_push":8030,"notification":{"title":"t","navigate":"https://a.b/","app_badge":7}}"#) else {
            Issue.record("an integer badge")
            return
        }
        #expect(numeric.appBadge == 7)
    }

    @Test(arguments: [
        (#"{"web_push": 8031, "notification": {"title": "t", "navigate": "https://a.b/"}}"#, "web_push: must be the number 8030, found 8031"),
        (#"{"web_push": 8030}"#, "notification: the member is missing or is not an object"),
        (#"{"web_push": 8030, "notification": {"title": "", "navigate": "https://a.b/"}}"#, "notification.title: the member is missing or is an empty string"),
        (#"{"web_push": 8030, "notification": {"title": "t", "navigate": "/orders"}}"#, "notification.navigate: the member is missing or is not a valid absolute URL"),
        (#"{"web_push": 8030, "notification": {"title": "t", "navigate": "https://a.b/", "dir": "up"}}"#, "notification.dir: must be \"auto\", \"ltr\" or \"rtl\", found \"up\""),
        (#"{"web_push": 8030, "notification": {"title": "t", "navigate": "https://a.b/", "app_badge": -1}}"#, "notification.app_badge: must be a non-negative integer or a string of digits, found -1"),
        (#"{"web_push": 8030, "notification": {"title": "t", "navigate": "https://a.b/", "mutable": "yes"}}"#, "notification.mutable: must be a boolean, found \"yes\""),
    ])
    func anInvalidMessageSaysWhy(text: String, reason: String) {
        #expect(Self.read(text) == .invalid(reason))
    }

    @Test func anythingElseIsTheServiceWorkers() {
        #expect(Self.read(#"{"title": "plain JSON"}"#) == .other)
        #expect(Self.read("hello") == .other)
        #expect(Self.read("") == .other)
    }
}

struct WebAppOriginTests {
    @Test(arguments: [
        ("https://shop.example", "web.shop.example", "https://shop.example"),
        ("HTTPS://Shop.Example:443", "web.shop.example", "https://shop.example"),
        ("https://shop.example:0443", "web.shop.example", "https://shop.example"),
        ("https://a.com:8443", "web.a.com.P8443", "https://a.com:8443"),
        ("https://a.com-8443", "web.a.com-8443", "https://a.com-8443"),
        ("http://localhost:8080", "web-http.localhost.P8080", "http://localhost:8080"),
        ("http://localhost:80", "web-http.localhost", "http://localhost"),
    ])
    func anOriginIsOneAppWhateverItsSpelling(origin: String, topic: String, canonical: String) {
        #expect(WebPushSubscription.appTopic(origin: origin) == topic)
        #expect(WebPushSubscription.canonicalOrigin(origin) == canonical)
    }

    @Test(arguments: ["https://shop.example/path", "https://shop.example:0", "https://shop.example:65536", "https://shop.example:", "ftp://x.y",
                      "https://[::1]", "https://sh op.example", "https://shop.example:000000000000000000443"])
    func whatIsNoOriginHasNoApp(text: String) {
        #expect(WebPushSubscription.appTopic(origin: text) == nil)
    }

    @Test func ttlWithLeadingZerosIsItsNumber() throws {
        #expect(try PushMessageHeaders(service: .mozilla, bodyLength: 0) { ["ttl": "00000000060"][$0] }.ttl == 60)
        #expect(try PushMessageHeaders(service: .mozilla, bodyLength: 0) { ["ttl": "000000000000000000005"][$0] }.ttl == 5)
    }
}
