import Foundation
import HTTPTypes
import HuddleCore
@testable import HuddleServer
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Testing

/// The home page through the router: creating a device in one click, the registration token, the admin
/// session cookie, the viewer's language, and the commands it writes.
@Suite struct HomePageTests {
    static func withApplication(
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.adminToken = "admin-secret-token"
        configure(&configuration)
        let application = Application(
            router: buildRouter(configuration: configuration, store: InMemoryNotificationStore(), metrics: PrometheusCollectorRegistry()))
        try await application.test(.router, body)
    }

    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    /// A browser's visit to the home page: the headers its forms post with (the form-token cookie) and the
    /// token field they carry (`&csrf=…`).
    static func visit(_ client: any TestClientProtocol) async throws -> (headers: HTTPFields, field: String) {
        let page = try await client.execute(uri: "/", method: .get)
        let cookie = try #require(page.headers[.setCookie]?.split(separator: ";").first.map(String.init))
        let html = String(buffer: page.body)
        let token = try #require(html.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/)?.1)
        var headers = form
        headers[.cookie] = cookie
        return (headers, "&csrf=\(token)")
    }

    @Test func oneClickCreatesADeviceWithTheExampleAppAndOpensItsCenterSignedIn() async throws {
        try await Self.withApplication({ $0.developmentMode = true }) { client in
            let browser = try await Self.visit(client)
            let response = try await client.execute(
                uri: "/devices", method: .post, headers: browser.headers, body: ByteBuffer(string: "name=My+phone" + browser.field))
            #expect(response.status == .seeOther)
            // The center's address, no secret in it: the redirect brings the device's cookie.
            let location = try #require(response.headers[.location])
            let token = String(try #require(location.wholeMatch(of: /\/devices\/([0-9a-f]{64})/)).1)
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.hasPrefix("huddle-\(token)=") && cookie.contains("HttpOnly") && cookie.contains("Max-Age=2592000"))
            let session: HTTPFields = [.cookie: try #require(cookie.split(separator: ";").first.map(String.init))]
            let center = try await client.execute(uri: location, method: .get, headers: session)
            #expect(center.status == .ok)
            let page = String(buffer: center.body)
            #expect(page.contains("--topic com.example.chat") && page.contains("apns-topic: com.example.chat"))
            #expect(!page.contains("install-command"))
            let apps = try await client.execute(uri: "/v1/devices/\(token)/apps", method: .get, headers: session) { try JSONParser.parse($0.body.readableBytesView) }
            #expect(apps.arrayValue?.first?["topic"] == "com.example.chat" && apps.arrayValue?.first?["name"] == "Chat")
            // The payload the page shows, pushed twice: the second sums up the first, in the singular.
            for _ in 0..<2 {
                let push = try await client.execute(
                    uri: "/3/device/\(token)", method: .post, headers: [HTTPField.Name("apns-topic")!: "com.example.chat"],
                    body: ByteBuffer(string: PushCommands.examplePayload))
                #expect(push.status == .ok)
            }
            let read = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: session) { try JSONParser.parse($0.body.readableBytesView) }
            #expect(read["groups"]?.arrayValue?.first?["summary"] == "1 more message from Teja")
            let russian = try await client.execute(uri: "/v1/devices/\(token)/center?languages=ru", method: .get, headers: session) {
                try JSONParser.parse($0.body.readableBytesView)
            }
            #expect(russian["groups"]?.arrayValue?.first?["summary"] == "Ещё 1 сообщение от Teja")
        }
    }

    @Test func aDeviceWithoutAppsShowsTheInstallCommandFirst() async throws {
        try await Self.withApplication { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try JSONParser.parse($0.body.readableBytesView) }
            let token = try #require(device["token"]?.stringValue)
            let secret = try #require(device["secret"]?.stringValue)
            let page = try await client.execute(uri: "/devices/\(token)", method: .get, headers: [.authorization: "Bearer \(secret)"])
            let html = String(buffer: page.body)
            let install = try #require(html.range(of: "install-command"))
            let send = try #require(html.range(of: "send-command"))
            #expect(install.lowerBound < send.lowerBound)
            #expect(html.contains("curl -X PUT http://localhost/v1/devices/\(token)/apps/com.example.chat -H &quot;authorization: Bearer $SECRET&quot;"))
            #expect(html.contains("<code>$SECRET</code>") && !html.contains(secret))
        }
    }

    @Test func theSignInPageAnswers200AndTheCenterWithoutACookie401() async throws {
        try await Self.withApplication { client in
            let token = String(repeating: "ab", count: 32)
            let signIn = try await client.execute(uri: "/devices/\(token)/session?languages=ru", method: .get)
            #expect(signIn.status == .ok)
            #expect(String(buffer: signIn.body).contains("Секрет этого устройства"))
            let center = try await client.execute(uri: "/devices/\(token)", method: .get)
            #expect(center.status == .unauthorized)
        }
    }

    @Test func beyondLoopbackCreatingNeedsTheRegistrationToken() async throws {
        try await Self.withApplication({ $0.registrationToken = "reg-token" }) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(String(buffer: page.body).contains("name=\"registrationToken\""))
            #expect(!String(buffer: page.body).contains("reg-token"))
            let browser = try await Self.visit(client)
            let refused = try await client.execute(
                uri: "/devices", method: .post, headers: browser.headers, body: ByteBuffer(string: "registrationToken=nope" + browser.field))
            #expect(refused.status == .unauthorized)
            #expect(String(buffer: refused.body).contains("That is not this server&#39;s registration token."))
            let accepted = try await client.execute(
                uri: "/devices", method: .post, headers: browser.headers, body: ByteBuffer(string: "registrationToken=reg-token" + browser.field))
            #expect(accepted.status == .seeOther)
        }
    }

    @Test func theAdminTokenBecomesACookieThatIsNotTheToken() async throws {
        try await Self.withApplication { client in
            let browser = try await Self.visit(client)
            let wrong = try await client.execute(
                uri: "/admin/session", method: .post, headers: browser.headers, body: ByteBuffer(string: "adminToken=nope" + browser.field))
            #expect(wrong.status == .unauthorized)
            #expect(wrong.headers[.setCookie] == nil)
            let forged = try await client.execute(
                uri: "/admin/session", method: .post, headers: Self.form, body: ByteBuffer(string: "adminToken=admin-secret-token"))
            #expect(forged.status == .forbidden)
            let right = try await client.execute(
                uri: "/admin/session", method: .post, headers: browser.headers,
                body: ByteBuffer(string: "adminToken=admin-secret-token" + browser.field))
            #expect(right.status == .seeOther)
            let cookie = try #require(right.headers[.setCookie])
            #expect(cookie.hasPrefix("huddle-admin=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            #expect(!cookie.contains("admin-secret-token"))
            // A random session: two sign-ins get two values, and signing out ends the one it names.
            let again = try await client.execute(
                uri: "/admin/session", method: .post, headers: browser.headers,
                body: ByteBuffer(string: "adminToken=admin-secret-token" + browser.field))
            let session = try #require(cookie.split(separator: ";").first.map(String.init))
            #expect(again.status == .seeOther)
            let second = try #require(again.headers[.setCookie]?.split(separator: ";").first.map(String.init))
            #expect(second.hasPrefix("huddle-admin=") && second != session)
            var signedIn = browser.headers
            signedIn[.cookie] = (browser.headers[.cookie] ?? "") + "; " + session
            let inspector = try await client.execute(uri: "/v1/admin/requests", method: .get, headers: [.cookie: session])
            #expect(inspector.status == .ok)
            let out = try await client.execute(
                uri: "/admin/session/end", method: .post, headers: signedIn, body: ByteBuffer(string: String(browser.field.dropFirst())))
            #expect(out.status == .seeOther)
            #expect(out.headers[.setCookie] == "huddle-admin=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0")
            let replayed = try await client.execute(uri: "/v1/admin/requests", method: .get, headers: [.cookie: session])
            #expect(replayed.status == .unauthorized)
        }
    }

    @Test func thePageSpeaksTheBrowsersLanguageAndTheChosenOne() async throws {
        try await Self.withApplication { client in
            let russian = try await client.execute(uri: "/", method: .get, headers: [.acceptLanguage: "ru-RU,ru;q=0.9,en;q=0.8"])
            let text = String(buffer: russian.body)
            #expect(text.contains("<html lang=\"ru\">") && text.contains("Создать и открыть"))
            #expect(!text.contains("Create and open"))
            let chosen = try await client.execute(uri: "/?languages=de", method: .get, headers: [.acceptLanguage: "ru"])
            #expect(String(buffer: chosen.body).contains("Erstellen und öffnen"))
            // A header of thousands of entries is read for its first few.
            let long = Array(repeating: "xx;q=0.1", count: 5000).joined(separator: ",") + ",ru"
            let bounded = try await client.execute(uri: "/", method: .get, headers: [.acceptLanguage: long])
            #expect(bounded.status == .ok && String(buffer: bounded.body).contains("<html lang=\"en\">"))
        }
    }

    @Test func theDemoOpensInOneClickOnALoopbackServer() async throws {
        try await Self.withApplication({ $0.demo = true }) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(String(buffer: page.body).contains("action=\"/demo/session\""))
        }
        try await Self.withApplication { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(!String(buffer: page.body).contains("demo"))
        }
    }

    @Test func beyondLoopbackTheDemoLinksItsSignInPage() async throws {
        try await Self.withApplication({ $0.demo = true; $0.host = "0.0.0.0" }) { client in
            let page = String(buffer: try await client.execute(uri: "/?languages=de", method: .get).body)
            #expect(page.contains("href=\"/devices/\(DemoDevice.token)/session?languages=de\""))
            let browser = try await Self.visit(client)
            let opened = try await client.execute(
                uri: "/demo/session", method: .post, headers: browser.headers, body: ByteBuffer(string: "languages=de" + browser.field))
            #expect(opened.status == .seeOther && opened.headers[.setCookie] == nil)
            #expect(opened.headers[.location] == "/devices/\(DemoDevice.token)/session?languages=de")
        }
    }

    @Test func pushCommandsFollowTheServer() {
        let plain = PushCommands(origin: "http://10.0.0.2:8443", token: "abc", topic: "com.example.chat", developmentMode: false)
        #expect(plain.send.hasSuffix("huddle send push.json --url http://10.0.0.2:8443 --device abc --topic com.example.chat --key AuthKey_KEYID.p8 --team-id TEAMID"))
        #expect(plain.curl.hasPrefix("curl --http2-prior-knowledge http://10.0.0.2:8443/3/device/abc -H \"authorization: bearer $JWT\" -H 'apns-topic: com.example.chat'"))
        #expect(plain.install == nil)
        let development = PushCommands(origin: "https://push.example:443", token: "abc", topic: "t", developmentMode: true)
        #expect(development.send.hasSuffix("--device abc --topic t"))
        #expect(development.curl.hasPrefix("curl --http2 https://push.example:443/3/device/abc -H 'apns-topic: t'"))
        let bare = PushCommands(origin: "http://h:1", token: "abc", topic: PushCommands.topic(among: []), developmentMode: true, hasApps: false)
        #expect(bare.install == "curl -X PUT http://h:1/v1/devices/abc/apps/com.example.chat -H \"authorization: Bearer $SECRET\" \\\n     -d '{\"name\": \"Chat\"}'")
    }

    @Test(arguments: [([String](), "com.example.chat"), (["com.a", "com.example.chat"], "com.example.chat"), (["com.a", "com.b"], "com.a")])
    func theCommandsPushToTheExampleAppWhenThereIsOne(apps: [String], topic: String) {
        #expect(PushCommands.topic(among: apps) == topic)
    }

    @Test func theExampleAppInstallsAndItsPayloadNamesItsCategory() throws {
        let app = try ExampleApp.record()
        #expect(app.topic == "com.example.chat" && app.displayName == "Chat")
        #expect(app.categories.map(\.identifier) == [ExampleApp.category])
        #expect(app.localizationFiles.keys.contains("ru.lproj/Localizable.stringsdict"))
        let payload = try JSONParser.parse(PushCommands.examplePayload)
        #expect(payload["aps"]?["category"]?.stringValue == ExampleApp.category)
        #expect(!PushCommands.examplePayload.contains("'"))
    }

    @Test func theFaviconIsServedAndEveryPageLinksIt() async throws {
        try await Self.withApplication { client in
            let ico = try await client.execute(uri: "/favicon.ico", method: .get)
            #expect(ico.status == .ok && ico.headers[.contentType] == "image/x-icon")
            // An ICO file's header: reserved 0, type 1 (icon), then how many images.
            #expect(Array(ico.body.readableBytesView.prefix(4)) == [0, 0, 1, 0])
            let svg = try await client.execute(uri: "/favicon.svg", method: .get)
            #expect(svg.status == .ok && svg.headers[.contentType] == "image/svg+xml")
            #expect(String(buffer: svg.body).contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
            for path in ["/", "/requests", "/devices/\(String(repeating: "0", count: 64))"] {
                let page = String(buffer: try await client.execute(uri: path, method: .get).body)
                #expect(page.contains(#"<link rel="icon" href="/favicon.ico" sizes="any">"#), "\(path)")
                #expect(page.contains(#"<link rel="icon" href="/favicon.svg" type="image/svg+xml">"#), "\(path)")
            }
        }
    }

    @Test(arguments: ["en", "en-GB", "zh-Hant", "pt-PT", "sr-Latn"])
    func languageTagsAreAccepted(tag: String) {
        #expect(PageLanguages.isLanguageTag(tag))
    }

    @Test(arguments: ["", "*", "<script>", String(repeating: "a", count: 36), "en GB", "1en"])
    func otherTextsAreNotLanguageTags(text: String) {
        #expect(!PageLanguages.isLanguageTag(text))
    }
}
