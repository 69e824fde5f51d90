import Foundation
import HuddleCore
@testable import HuddleServer
import Testing

/// The web apps page's context at its own level: each subscription's state at the push service, its counts shown only
/// when there are some, its API location, and the services offered with the device's own chosen.
@Suite struct WebAppsPageTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func subscription(_ id: String, online: Bool = true, ended: Bool = false, pending: Int = 0, silent: Int = 0) -> WebPushSubscription {
        WebPushSubscription(
            id: id, origin: "https://\(id).example", service: "mozilla", applicationServerKey: "key", privateKey: "", authSecret: "auth",
            createdAt: start, endedAt: ended ? start : nil, endReason: ended ? "revoked by Safari" : nil, silentPushes: silent, online: online,
            pending: (0..<pending).map {
                PendingWebPush(messageID: "m\($0)", receivedAt: start, ttl: 60, urgency: nil, topic: nil, encoding: "aes128gcm", body: "")
            })
    }

    @Test func eachSubscriptionsStateAndCountsAreShownAsTheyAre() throws {
        let device = DeviceRecord(token: "dev", secretHash: "h", name: "Pixel", createdAt: Self.start, kind: .android(version: 15))
        let apps = [
            AppRecord(topic: "web.a.example", displayName: "A", webPush: Self.subscription("a")),
            AppRecord(topic: "web.b.example", webPush: Self.subscription("b", online: false, pending: 2, silent: 1)),
            AppRecord(topic: "web.c.example", webPush: Self.subscription("c", ended: true)),
            AppRecord(topic: "com.example.native"),
        ]
        let context = WebAppsPage(device: device, apps: apps, endpointOrigin: "http://127.0.0.1:8443").context
        let entries = try #require(context["subscriptions"] as? [[String: Any]])
        #expect(entries.map { $0["name"] as? String } == ["A", "web.b.example", "web.c.example"])
        #expect(entries.map { $0["state"] as? String } == ["subscribed", "subscribed, the browser offline", "ended: revoked by Safari"])
        #expect(entries.map { $0["serviceLabel"] as? String } == ["Mozilla (Firefox)", "Mozilla (Firefox)", "Mozilla (Firefox)"])
        #expect(entries[0]["location"] as? String == "/v1/devices/dev/web-push/subscriptions/a")
        // Counts of none are left out (a template section shows for 0).
        #expect(entries[0]["pending"] == nil && entries[0]["silentPushes"] == nil)
        #expect(entries[1]["pending"] as? Int == 2 && entries[1]["silentPushes"] as? Int == 1)
        #expect(entries.map { $0["goesOnline"] as? String } == ["false", "true", "false"])
        // What a page holds: the endpoint on the origin the browser reached.
        let json = try JSONParser.parse(Array(try #require(entries[0]["json"] as? String).utf8))
        #expect(json["endpoint"] == "http://127.0.0.1:8443/web-push/mozilla/wpush/v2/a")

        // Chrome on Android: Google's service is the one chosen.
        #expect(context["browser"] as? String == "Chrome")
        let services = try #require(context["services"] as? [[String: Any]])
        #expect(services.filter { $0["selected"] as? Bool == true }.map { $0["value"] as? String } == ["fcm"])
    }
}
