import Crypto
import Foundation
import HTTPTypes
import HuddleCore
import HuddleServer
import HuddleWebPush
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Synchronization
import Testing

/// The push service at its own level, through the router with the server's clock in the test's hand: a push accepted
/// and shown, store and forward with a TTL that runs out as the clock moves (no sleep), and an unsubscribed endpoint.
@Suite struct WebPushEndpointTests {
    /// An application server: its VAPID key, made from fixed bytes (a key type is not `Sendable`).
    static var key: P256.Signing.PrivateKey {
        get throws { try P256.Signing.PrivateKey(rawRepresentation: Data(repeating: 0x17, count: 32)) }
    }

    static func json(_ buffer: ByteBuffer) throws -> JSONValue { try JSONParser.parse(buffer.readableBytesView) }

    /// A pushed Declarative Web Push, encrypted for `subscription` and signed for its endpoint's origin at `now`.
    static func push(
        _ title: String, to subscription: JSONValue, ttl: Int, now: Date, client: some TestClientProtocol
    ) async throws -> TestResponse {
        let endpoint = try #require(subscription["endpoint"]?.stringValue)
        let servicePath = try #require(endpoint.range(of: "/web-push/"))
        let origin = String(endpoint[..<servicePath.lowerBound])
        let p256dh = try #require(subscription["keys"]?["p256dh"]?.stringValue)
        let authText = try #require(subscription["keys"]?["auth"]?.stringValue)
        let receiverBytes = try #require(Base64URL.decode(Substring(p256dh)))
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: receiverBytes)
        let auth = try #require(Base64URL.decode(Substring(authText)))
        let text = #"{"web_push": 8030, "notification": {"title": "\#(title)", "navigate": "https://shop.example/"}}"#
        let body = try MessageEncryption.encrypt(aes128gcm: Data(text.utf8), to: receiver, authSecret: auth)
        let authorization = try VAPIDCredentials.authorization(
            audience: origin, expiresAt: Int64(now.timeIntervalSince1970) + 3600, subject: "mailto:ops@shop.example.com", key: try Self.key)
        return try await client.execute(
            uri: String(endpoint.dropFirst(origin.count)), method: .post,
            headers: [.authorization: authorization, .contentEncoding: "aes128gcm", HTTPField.Name("TTL")!: String(ttl)],
            body: ByteBuffer(bytes: body))
    }

    @Test func keptPushesOutliveTheirTTLAsTheServersClockMoves() async throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = ServerConfiguration()
        configuration.clock = { now.withLock { $0 } }
        let application = Application(router: buildRouter(configuration: configuration, store: InMemoryNotificationStore(), metrics: PrometheusCollectorRegistry()))
        try await application.test(.router) { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            let key = Base64URL.encode(try Self.key.publicKey.x963Representation)
            let subscribed = try await client.execute(
                uri: "/v1/devices/\(token)/web-push/subscriptions", method: .post, headers: auth,
                body: ByteBuffer(string: #"{"origin": "https://shop.example", "applicationServerKey": "\#(key)"}"#))
            #expect(subscribed.status == .created)
            let subscription = try Self.json(subscribed.body)
            let location = try #require(subscribed.headers[.location])

            // Online: accepted and shown at once.
            let shown = try await Self.push("Packed", to: subscription, ttl: 60, now: now.withLock { $0 }, client: client)
            #expect(shown.status == .created)

            // Offline: kept; one with a TTL of 10 s, one of an hour.
            #expect(try await client.execute(uri: location, method: .patch, headers: auth, body: ByteBuffer(string: #"{"online": false}"#)).status == .ok)
            #expect(try await Self.push("Flash sale", to: subscription, ttl: 10, now: now.withLock { $0 }, client: client).status == .created)
            #expect(try await Self.push("Shipped", to: subscription, ttl: 3600, now: now.withLock { $0 }, client: client).status == .created)

            // A minute later the first has outlived its TTL at the push service; the second is handed over.
            now.withLock { $0 += 60 }
            let back = try await client.execute(uri: location, method: .patch, headers: auth, body: ByteBuffer(string: #"{"online": true}"#)) {
                try Self.json($0.body)
            }
            #expect(back["delivered"] == .integer(1) && back["expired"] == .integer(1) && back["failed"] == .integer(0))
            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try Self.json($0.body) }
            let titles = (center["groups"]?.arrayValue ?? []).flatMap { $0["notifications"]?.arrayValue ?? [] }.compactMap { $0["title"]?.stringValue }
            #expect(titles.sorted() == ["Packed", "Shipped"])

            // Unsubscribed: Apple's 410.
            #expect(try await client.execute(uri: location, method: .delete, headers: auth).status == .noContent)
            let gone = try await Self.push("Late", to: subscription, ttl: 60, now: now.withLock { $0 }, client: client)
            #expect(gone.status == .gone)
            #expect(try Self.json(gone.body) == .object(JSONObject([("reason", .string("Unregistered"))])))
        }
    }
}
