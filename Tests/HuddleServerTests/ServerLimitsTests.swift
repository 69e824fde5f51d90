import Foundation
import HTTPTypes
import HuddleCore
import HuddleServer
import HuddleTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Logging
import Testing

/// What strangers can make the server hold is bounded, and every refusal names its limit.
@Suite struct ServerLimitsTests {
    /// - Parameter logger: where the application logs (default: standard error).
    static func withApplication(
        _ configure: (inout ServerConfiguration) -> Void = { _ in }, store: any NotificationStore = InMemoryNotificationStore(),
        logger: Logger? = nil, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = ServerConfiguration()
        configuration.developmentMode = true
        configure(&configuration)
        let application = Application(
            router: buildRouter(configuration: configuration, store: store, metrics: PrometheusCollectorRegistry()), logger: logger)
        try await application.test(.router, body)
    }

    static func error(_ buffer: ByteBuffer) throws -> String? {
        try JSONParser.parse(buffer.readableBytesView)["error"]?.stringValue
    }

    static func register(_ client: any TestClientProtocol, headers: HTTPFields = [:]) async throws -> (token: String, auth: HTTPFields) {
        let device = try await client.execute(uri: "/v1/devices", method: .post, headers: headers) { try JSONParser.parse($0.body.readableBytesView) }
        let token = try #require(device["token"]?.stringValue)
        return (token, [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"])
    }

    @Test func registrationCanRequireAToken() async throws {
        try await Self.withApplication({ $0.registrationToken = "let-me-in" }) { client in
            let anonymous = try await client.execute(uri: "/v1/devices", method: .post)
            #expect(anonymous.status == .unauthorized)
            #expect(try Self.error(anonymous.body)
                == "registering a device on this server needs its registration token: send Authorization: Bearer <token>")
            let wrong = try await client.execute(uri: "/v1/devices", method: .post, headers: [.authorization: "Bearer let-me"])
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(uri: "/v1/devices", method: .post, headers: [.authorization: "Bearer let-me-in"])
            #expect(right.status == .created)
        }
    }

    @Test func registrationReadsSmallBodies() async throws {
        try await Self.withApplication { client in
            let name = String(repeating: "x", count: 5_000)
            let response = try await client.execute(uri: "/v1/devices", method: .post, body: ByteBuffer(string: #"{"name": "\#(name)"}"#))
            #expect(response.status == .contentTooLarge)
            #expect(try Self.error(response.body) == "the body is larger than 4096 bytes")
        }
    }

    @Test func theServerKeepsAtMostItsDevices() async throws {
        try await Self.withApplication({ $0.limits.devices = 2 }) { client in
            _ = try await Self.register(client)
            _ = try await Self.register(client)
            let third = try await client.execute(uri: "/v1/devices", method: .post)
            #expect(third.status == .serviceUnavailable)
            #expect(try Self.error(third.body) == "this server has 2 devices, the most it keeps (--max-devices)")
        }
    }

    @Test func aDeviceInstallsAtMostItsApps() async throws {
        try await Self.withApplication({ $0.limits.appsPerDevice = 1 }) { client in
            let (token, auth) = try await Self.register(client)
            let first = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.one", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            #expect(first.status == .ok)
            // Saving the same app again is no new app.
            let again = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.one", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            #expect(again.status == .ok)
            let second = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.two", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            #expect(second.status == .conflict)
            #expect(try Self.error(second.body) == "the device has 1 apps, the most one device may install (--max-apps-per-device)")
        }
    }

    @Test func anAppUploadsAtMostItsLocalizationBytes() async throws {
        try await Self.withApplication({ $0.limits.localizationBytesPerApp = 100 }) { client in
            let (token, auth) = try await Self.register(client)
            _ = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.app", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            let path = "/v1/devices/\(token)/apps/com.example.app/localizations"
            let small = try await client.execute(
                uri: "\(path)/en.lproj/Localizable.strings", method: .put, headers: auth, body: ByteBuffer(string: #""a" = "b";"#))
            #expect(small.status == .noContent)
            let large = String(repeating: #""k" = "v";"#, count: 10)
            let refused = try await client.execute(uri: "\(path)/de.lproj/Localizable.strings", method: .put, headers: auth, body: ByteBuffer(string: large))
            #expect(refused.status == .contentTooLarge)
            #expect(try Self.error(refused.body)
                == "the app's other localization files hold 10 bytes, and with this file they would pass 100 bytes, the most an app may upload (--max-localization-bytes)")
            // Replacing a file counts its new size, not both.
            let replaced = try await client.execute(
                uri: "\(path)/en.lproj/Localizable.strings", method: .put, headers: auth, body: ByteBuffer(string: String(repeating: #""k" = "v";"#, count: 9)))
            #expect(replaced.status == .noContent)
        }
    }

    @Test func aStringsdictThatWouldBlowUpIsRefusedAtUpload() async throws {
        try await Self.withApplication { client in
            let (token, auth) = try await Self.register(client)
            _ = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.app", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            var variables = ""
            for level in 0..<8 {
                let form = level == 7 ? "x" : String(repeating: "%1$#@v\(level + 1)@", count: 8)
                variables += """
                    <key>v\(level)</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string>\
                    <key>NSStringFormatValueTypeKey</key><string>u</string><key>other</key><string>\(form)</string></dict>
                    """
            }
            let plist = """
                <?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>BOOM</key><dict>\
                <key>NSStringLocalizedFormatKey</key><string>%#@v0@</string>\(variables)</dict></dict></plist>
                """
            let response = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.app/localizations/en.lproj/Localizable.stringsdict", method: .put, headers: auth,
                body: ByteBuffer(string: plist))
            #expect(response.status == .badRequest)
            let message = try #require(try Self.error(response.body))
            #expect(message.contains("is used twice in one text"), "\(message)")
            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth)
            #expect(center.status == .ok)
        }
    }

    @Test func anObjectOfManyKeysIsRefusedQuickly() async throws {
        try await Self.withApplication { client in
            let (token, auth) = try await Self.register(client)
            let keys = (0..<40_000).map { "\"k\($0)\": 0" }.joined(separator: ",")
            let response = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.app", method: .put, headers: auth, body: ByteBuffer(string: "{\(keys)}"))
            #expect(response.status == .badRequest)
            #expect(try Self.error(response.body)?.hasSuffix("an object has more than 10000 members") == true)
        }
    }

    @Test func aLocalNotificationIsNoLargerThanAPush() async throws {
        try await Self.withApplication { client in
            let (token, auth) = try await Self.register(client)
            _ = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.app", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            let body = String(repeating: "x", count: 6_000)
            let response = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.app/notifications", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"content": {"body": "\#(body)"}}"#))
            #expect(response.status == .contentTooLarge)
            #expect(try Self.error(response.body) == "the body is larger than 5120 bytes")
        }
    }

    @Test func metricsCanRequireAToken() async throws {
        try await Self.withApplication({ $0.metricsToken = "scrape" }) { client in
            let anonymous = try await client.execute(uri: "/metrics", method: .get)
            #expect(anonymous.status == .unauthorized)
            let scraper = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer scrape"])
            #expect(scraper.status == .ok)
        }
    }

    @Test func theAdminTokenMustMatchExactly() async throws {
        try await Self.withApplication({ $0.adminToken = "admin-secret" }) { client in
            for wrong in ["Bearer admin", "Bearer admin-secret-and-more", "admin-secret", "Basic admin-secret"] {
                let response = try await client.execute(uri: "/v1/admin/keys", method: .get, headers: [.authorization: wrong])
                #expect(response.status == .unauthorized)
            }
            let right = try await client.execute(uri: "/v1/admin/keys", method: .get, headers: [.authorization: "Bearer admin-secret"])
            #expect(right.status == .ok)
        }
    }

    @Test func theWebCookieHoldsASessionNotTheSecret() async throws {
        try await Self.withApplication { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try JSONParser.parse($0.body.readableBytesView) }
            let token = try #require(device["token"]?.stringValue)
            let secret = try #require(device["secret"]?.stringValue)
            let session = try await client.execute(
                uri: "/devices/\(token)/session", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"secret": "\#(secret)"}"#))
            #expect(session.status == .noContent)
            let cookie = try #require(session.headers[.setCookie])
            #expect(!cookie.contains(secret))
            #expect(!cookie.contains("Secure"))
            let value = try #require(cookie.split(separator: ";").first.map(String.init))
            let page = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: [.cookie: value])
            #expect(page.status == .ok)
            let forged = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: [.cookie: "huddle-\(token)=\(secret)"])
            #expect(forged.status == .unauthorized)
        }
    }

    @Test func aDeviceWhoseStoredAppTodaysRulesRefuseStillReads() async throws {
        let store = InMemoryNotificationStore()
        try await Self.withApplication(store: store) { client in
            let (token, auth) = try await Self.register(client)
            // As a server of an older version could have stored it.
            let poisoned = AppRecord(
                topic: "com.example.old",
                categories: [NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%9223372036854775807$u more"))])
            _ = try await store.saveApp(poisoned, device: token)
            _ = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.app", method: .put, headers: auth, body: ByteBuffer(string: "{}"))
            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth)
            #expect(center.status == .ok)
        }
    }
}
