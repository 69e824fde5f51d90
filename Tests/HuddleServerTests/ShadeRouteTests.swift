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

            // The shade follows the app as saved since the session loaded it (the session keeps the apps, not the store): its default channel now.
            _ = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.android.chat", method: .put, headers: auth,
                body: ByteBuffer(string: #"{"name": "Chat", "defaultChannel": "chats", "channels": [{"id": "chats", "name": "Messages", "importance": "low"}]}"#))
            let renamed = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try ServerRouterTests.json($0.body) }
            let entry = try #require(renamed["entries"]?.arrayValue?.first)
            #expect(entry["channel"]?["name"] == "Messages" && entry["alerting"]?["headsUp"] == false, "\(entry.jsonText())")
            #expect(try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.android.chat", method: .delete, headers: auth).status.code < 300)
            let emptied = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try ServerRouterTests.json($0.body) }
            #expect(emptied["entries"]?.arrayValue?.isEmpty == true)
        }
    }

    /// A pair of phones on one page: `/devices/{iPhone}?beside={android}` shows the iPhone's stacks and the Android phone's
    /// shade, each signed in as its own page is (the Android phone by its cookie only), and sends a browser that asked
    /// the other way round to the iPhone's page.
    @Test func anIPhonesPageShowsTheAndroidPhoneBesideItOnceSignedInToBoth() async throws {
        try await ServerRouterTests.withApplication(.memory) { client in
            func register(_ body: String, app: String, _ appBody: String) async throws -> (token: String, secret: String, fcmToken: String) {
                let device = try await client.execute(uri: "/v1/devices", method: .post, body: ByteBuffer(string: body)) { try ServerRouterTests.json($0.body) }
                let token = try #require(device["token"]?.stringValue)
                let secret = try #require(device["secret"]?.stringValue)
                let installed = try await client.execute(
                    uri: "/v1/devices/\(token)/apps/\(app)", method: .put, headers: [.authorization: "Bearer \(secret)"],
                    body: ByteBuffer(string: appBody)
                ) { try ServerRouterTests.json($0.body) }
                return (token, secret, try #require(installed["fcmToken"]?.stringValue))
            }
            let android = try await register(
                #"{"name": "Pixel", "platform": "android"}"#, app: "com.example.android.chat",
                #"{"name": "Chat", "channels": [{"id": "chats", "name": "Chats", "importance": "high"}]}"#)
            let iPhone = try await register(#"{"name": "iPhone"}"#, app: "com.example.chat", #"{"name": "Chat"}"#)
            // One message to both phones' registration tokens, as a team's back end sends it.
            for fcmToken in [android.fcmToken, iPhone.fcmToken] {
                let sent = try await client.execute(
                    uri: "/v1/projects/huddle/messages:send", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"message": {"token": "\#(fcmToken)", "notification": {"title": "Teja", "body": "Lunch at one?"}}}"#))
                #expect(sent.status == .ok)
            }
            let pairAddress = "/devices/\(iPhone.token)?beside=\(android.token)"
            let iPhoneAuth: HTTPFields = [.authorization: "Bearer \(iPhone.secret)"]

            // Signed in to the iPhone alone: the Android phone's secret is asked for, and the form comes back to the pair.
            let asked = try await client.execute(uri: pairAddress, method: .get, headers: iPhoneAuth)
            #expect(asked.status == .unauthorized)
            let form = String(buffer: asked.body)
            #expect(form.contains("action=\"/devices/\(android.token)/session\"") && form.contains("name=\"next\" value=\"\(pairAddress)\""))
            #expect(!form.contains("Lunch"))
            let formCookie = try #require(asked.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            let csrf = try #require(form.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1)
            func signIn(next: String) async throws -> TestResponse {
                let body = "secret=\(android.secret)&csrf=\(csrf)&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                return try await client.execute(
                    uri: "/devices/\(android.token)/session", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: formCookie], body: ByteBuffer(string: body))
            }
            let signedIn = try await signIn(next: pairAddress)
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == pairAddress)
            let androidCookie = try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            // A next that leaves the server's device pages is not followed: the phone's own page is.
            for elsewhere in ["//evil.example/devices/", "https://evil.example/", "/devices/\\\\evil.example", "/devices//evil.example", "/v1/devices"] {
                #expect(try await signIn(next: elsewhere).headers[.location] == "/devices/\(android.token)", "\(elsewhere)")
            }

            // Signed in to both: the iPhone's stacks and, beside them, the Android phone's shade.
            var both = iPhoneAuth
            both[.cookie] = androidCookie
            let pair = try await client.execute(uri: pairAddress + "&languages=de", method: .get, headers: both)
            #expect(pair.status == .ok)
            let page = String(buffer: pair.body)
            #expect(page.contains("<main class=\"center beside\">") && page.contains("id=\"stacks\""))
            #expect(page.contains("<section id=\"beside\" class=\"pair-android\" data-token=\"\(android.token)\" data-change=\""))
            #expect(page.contains("<span class=\"device-label\">Pixel</span>") && page.contains("<span class=\"device-label\">iPhone</span>"))
            #expect(page.contains("<div id=\"beside-shade\" class=\"phone-shade\" aria-live=\"polite\"><div class=\"shade\" data-change=\""))
            // The message on both: the iPhone's card and the Android phone's, in the page's language.
            #expect(ShadePageTests.count("Lunch at one?", in: page) == 2)
            #expect(page.contains("<html lang=\"de\">") && ShadePageTests.count("data-live=\"verbunden\"", in: page) == 2)

            // Asked for from the Android phone's side, the pair is the iPhone's page (with the view asked for).
            // The cookie of a device's web session, as a page's sign-in by JSON gets it.
            func webSession(_ device: (token: String, secret: String, fcmToken: String)) async throws -> String {
                let signedIn = try await client.execute(
                    uri: "/devices/\(device.token)/session", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"secret": "\#(device.secret)"}"#))
                return try #require(signedIn.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            }
            var fromAndroid: HTTPFields = [.authorization: "Bearer \(android.secret)"]
            fromAndroid[.cookie] = try await webSession(iPhone)
            let swapped = try await client.execute(uri: "/devices/\(android.token)?beside=\(iPhone.token)&locked=true&languages=de", method: .get, headers: fromAndroid)
            #expect(swapped.status == .seeOther)
            #expect(swapped.headers[.location] == "/devices/\(iPhone.token)?beside=\(android.token)&languages=de&locked=true")

            // Not a pair: the page's own device, two iPhones, or no device's token.
            let other = try await register(#"{"name": "Other"}"#, app: "com.example.chat", #"{"name": "Chat"}"#)
            var twoIPhones = iPhoneAuth
            twoIPhones[.cookie] = try await webSession(other)
            let notAPair = try await client.execute(uri: "/devices/\(iPhone.token)?beside=\(other.token)", method: .get, headers: twoIPhones)
            #expect(notAPair.status == .badRequest && String(buffer: notAPair.body).contains("both iPhones"))
            for beside in [iPhone.token, "..%2Fx", String(repeating: "a", count: 201)] {
                #expect(try await client.execute(uri: "/devices/\(iPhone.token)?beside=\(beside)", method: .get, headers: iPhoneAuth).status == .badRequest)
            }
        }
    }
}
