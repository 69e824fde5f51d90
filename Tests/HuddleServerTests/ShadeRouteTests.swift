import Foundation
import HTTPTypes
import HuddleCore
import HuddleServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// An Android phone's page and `GET /devices/{token}/shade` through the whole application: a message sent to the
/// phone through the FCM endpoint shows in the shade the page holds and in the shade alone, which is signed in as the
/// page is, follows `locked` and `languages`, and does not exist for an iPhone.
@Suite struct ShadeRouteTests {
    @Test func anAndroidPhonesPageAndShadeShowItsMessagesToWhoeverHoldsItsSecret() async throws {
        try await ServerRouterTests.withApplication(.memory) { client in
            let device = try await client.execute(
                uri: "/v1/devices", method: .post, body: ByteBuffer(string: #"{"name": "Pixel", "platform": "android"}"#)
            ) { try ServerRouterTests.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            let app = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.android.chat", method: .put, headers: auth,
                body: ByteBuffer(string: #"{"name": "Chat", "channels": [{"id": "chats", "name": "Chats", "importance": "high"}]}"#)
            ) { try ServerRouterTests.json($0.body) }
            let fcmToken = try #require(app["fcmToken"]?.stringValue)
            // A --development server takes messages without an OAuth token.
            let sent = try await client.execute(
                uri: "/v1/projects/huddle/messages:send", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"message": {"token": "\#(fcmToken)", "notification": {"title": "<Teja>", "body": "Lunch?"}}}"#))
            #expect(sent.status == .ok)

            let shade = try await client.execute(uri: "/devices/\(token)/shade", method: .get, headers: auth)
            #expect(shade.status == .ok)
            #expect(shade.headers[.contentType] == "text/html; charset=utf-8" && shade.headers[.cacheControl] == "no-store")
            let html = String(buffer: shade.body)
            #expect(html.hasPrefix("<div class=\"shade\" data-change=\""))
            #expect(html.contains("<p class=\"shade-title\">&lt;Teja&gt;</p>") && html.contains("<p class=\"shade-body\">Lunch?</p>"))
            let locked = String(buffer: try await client.execute(uri: "/devices/\(token)/shade?locked=true&languages=de", method: .get, headers: auth).body)
            #expect(locked.contains("<span class=\"shade-hidden\">Inhalte ausgeblendet</span>") && !locked.contains("Teja"))

            // The page holds the same shade in its phone, and none of the iPhone's stacks.
            let page = String(buffer: try await client.execute(uri: "/devices/\(token)", method: .get, headers: auth).body)
            #expect(page.contains("<div id=\"shade\" class=\"phone-shade\" aria-live=\"polite\"><div class=\"shade\" data-change=\""))
            #expect(page.contains("<p class=\"shade-title\">&lt;Teja&gt;</p>"))
            #expect(!page.contains("id=\"stacks\""))

            // Without the secret, refused (not the page's form); an iPhone has no shade.
            #expect(try await client.execute(uri: "/devices/\(token)/shade", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/devices/\(token)/shade", method: .get, headers: [.authorization: "Bearer 00"]).status == .unauthorized)
            let iPhone = try await client.execute(uri: "/v1/devices", method: .post) { try ServerRouterTests.json($0.body) }
            let iPhoneAuth: HTTPFields = [.authorization: "Bearer \(try #require(iPhone["secret"]?.stringValue))"]
            let iPhoneShade = try await client.execute(
                uri: "/devices/\(try #require(iPhone["token"]?.stringValue))/shade", method: .get, headers: iPhoneAuth)
            #expect(iPhoneShade.status == .notFound)
        }
    }
}
