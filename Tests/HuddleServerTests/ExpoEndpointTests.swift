import Foundation
import HTTPTypes
import HuddleCore
@testable import HuddleServer
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Prometheus
import Synchronization
import Testing

/// Expo's push API at its own level, through the router with the server's clock in the test's hand: tickets in request
/// order, receipts kept a day as the clock moves (no sleep), bodies inflated within their bound.
@Suite struct ExpoEndpointTests {
    static func json(_ buffer: ByteBuffer) throws -> JSONValue { try JSONParser.parse(buffer.readableBytesView) }

    /// A new iPhone with `com.example.chat`.
    struct InstalledApp: Sendable {
        var token: String
        /// The device's secret, as the header that presents it.
        var auth: HTTPFields
        /// The app as the device API answered it.
        var app: JSONValue
        var expoToken: String
    }

    static func iPhoneApp(_ client: some TestClientProtocol) async throws -> InstalledApp {
        let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
        let token = try #require(device["token"]?.stringValue)
        let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
        let app = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.chat", method: .put, headers: auth, body: ByteBuffer(string: "{}")) {
            try Self.json($0.body)
        }
        return InstalledApp(token: token, auth: auth, app: app, expoToken: try #require(app["expoPushToken"]?.stringValue))
    }

    @Test func ticketsComeInOrderAndReceiptsAreKeptADayAsTheServersClockMoves() async throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = ServerConfiguration()
        configuration.clock = { now.withLock { $0 } }
        configuration.adminToken = "admin"
        let store = InMemoryNotificationStore()
        let application = Application(router: buildRouter(configuration: configuration, store: store, metrics: PrometheusCollectorRegistry()))
        try await application.test(.router) { client in
            // Set up here rather than by iPhoneApp(_:): Swift 6.3.1's region analysis crashes on it beside receipts() below.
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            let app = try await client.execute(uri: "/v1/devices/\(token)/apps/com.example.chat", method: .put, headers: auth, body: ByteBuffer(string: "{}")) {
                try Self.json($0.body)
            }
            let expoToken = try #require(app["expoPushToken"]?.stringValue)
            #expect(app["expoProject"] == "@huddle/default")

            let body = #"[{"to": "\#(expoToken)", "title": "One"}, {"to": ["ExponentPushToken[nope!]", "\#(expoToken)"], "title": "Two"}]"#
            let sent = try await client.execute(uri: "/--/api/v2/push/send", method: .post, body: ByteBuffer(string: body)) { try Self.json($0.body) }
            let tickets = try #require(sent["data"]?.arrayValue)
            #expect(tickets.map { $0["status"]?.stringValue } == ["ok", "error", "ok"])
            #expect(tickets[1]["details"]?["error"] == "DeviceNotRegistered")
            let ids = tickets.compactMap { $0["id"]?.stringValue }
            #expect(ids.count == 2)
            // Each ok ticket is its own message's: the inspector's record of each id holds the message it answered.
            let records = try await client.execute(uri: "/v1/admin/requests?device=\(token)", method: .get, headers: [.authorization: "Bearer admin"]) {
                try Self.json($0.body)
            }
            let titleOfTicket = Dictionary(uniqueKeysWithValues: (records["requests"]?.arrayValue ?? []).compactMap { record in
                record["answer"]?["apnsID"]?.stringValue.flatMap { id in record["payload"]?["title"]?.stringValue.map { (id, $0) } }
            })
            #expect(ids.map { titleOfTicket[$0] } == ["One", "Two"])

            func receipts() async throws -> JSONValue {
                let asked = JSONValue.object(JSONObject([("ids", .array((ids + ["unknown"]).map(JSONValue.string)))]))
                return try await client.execute(uri: "/--/api/v2/push/getReceipts", method: .post, body: ByteBuffer(bytes: asked.jsonUTF8())) {
                    try Self.json($0.body)
                }
            }
            let ok = JSONValue.object(JSONObject([("status", "ok")]))
            #expect(try await receipts() == .object(JSONObject([("data", .object(JSONObject(ids.map { ($0, ok) })))])))

            // A day on, Expo has cleared them: not answered, and gone from the store after the retention's round.
            now.withLock { $0 += 24 * 3600 + 1 }
            #expect(try await receipts() == .object(JSONObject([("data", .object(JSONObject()))])))
            #expect(await store.receipts(ids: ids, keptSince: .distantPast).count == 2)
            await ReceiptRetention(store: store, clock: { now.withLock { $0 } }, logger: Logger(label: "test")).forgetOld()
            #expect(await store.receipts(ids: ids, keptSince: .distantPast).isEmpty)

            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try Self.json($0.body) }
            let titles = (center["groups"]?.arrayValue ?? []).flatMap { $0["notifications"]?.arrayValue ?? [] }.compactMap { $0["title"]?.stringValue }
            #expect(titles.sorted() == ["One", "Two"])
        }
    }

    @Test func aMessageTooBigKeepsOnlyItsSizeInTheInspector() async throws {
        var configuration = ServerConfiguration()
        configuration.adminToken = "admin"
        let application = Application(router: buildRouter(configuration: configuration, store: InMemoryNotificationStore(), metrics: PrometheusCollectorRegistry()))
        try await application.test(.router) { client in
            let installed = try await Self.iPhoneApp(client)
            let token = installed.token
            let expoToken = installed.expoToken
            // Just past the limit once Expo wraps it, and a body far past what the inspector keeps.
            for (body, kept) in [(String(repeating: "b", count: 4_050), true), (String(repeating: "b", count: 100_000), false)] {
                let message = JSONValue.object(JSONObject([("to", .string(expoToken)), ("body", .string(body))]))
                let sent = try await client.execute(uri: "/--/api/v2/push/send", method: .post, body: ByteBuffer(bytes: message.jsonUTF8())) {
                    try Self.json($0.body)
                }
                #expect(sent["data"]?["status"] == "ok")
                let records = try await client.execute(uri: "/v1/admin/requests?device=\(token)&limit=1", method: .get, headers: [.authorization: "Bearer admin"]) {
                    try Self.json($0.body)
                }
                let record = try #require(records["requests"]?.arrayValue?.first)
                #expect(record["expo"]?["receipt"]?["details"]?["error"] == "MessageTooBig")
                #expect((record["payload"] != nil) == kept)
                if kept {
                    #expect(record["expo"]?["apns"]?["payload"] == nil && (record["expo"]?["apns"]?["payloadBytes"]).map { if case .integer(let size) = $0 { size > 4_096 } else { false } } == true)
                } else {
                    // Known too big from its text alone: nothing was made for APNs.
                    #expect(record["expo"]?["apns"] == nil)
                }
            }
        }
    }

    @Test func aRefusedRequestIsAnErrorsEnvelopeWithExposCode() async throws {
        let application = Application(router: buildRouter(configuration: ServerConfiguration(), store: InMemoryNotificationStore(), metrics: PrometheusCollectorRegistry()))
        try await application.test(.router) { client in
            let refused = try await client.execute(uri: "/--/api/v2/push/send", method: .post, body: ByteBuffer(string: "{not json"))
            #expect(refused.status == .badRequest)
            #expect(try Self.json(refused.body)["errors"]?.arrayValue?.first?["code"] == "VALIDATION_ERROR")
            let wrongMethod = try await client.execute(uri: "/--/api/v2/push/getReceipts", method: .get)
            #expect(wrongMethod.status == .methodNotAllowed)
            let crossSite = try await client.execute(
                uri: "/--/api/v2/push/send", method: .post, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"], body: ByteBuffer(string: "[]"))
            #expect(crossSite.status == .unauthorized)
            let empty = try await client.execute(uri: "/--/api/v2/push/send", method: .post, body: ByteBuffer(string: "[]")) { try Self.json($0.body) }
            #expect(empty == .object(JSONObject([("data", .array([]))])))
        }
    }

    @Test func compressedBodiesInflateWithinTheirBound() throws {
        let text = String(repeating: #"{"to": "ExponentPushToken[abc]"}"#, count: 100)
        // zlib's deflate of `text`, made by Python's zlib.compress (fixed bytes: the test needs no compressor).
        let deflated = try #require(Data(base64Encoded: "eJyrVirJV7JSUHKtKMjPS80rCSgtzgjJz07Ni05MSo5Vqq0elR+VH5UflR+VH5UflR+VH5UflR+VH5WnkjwANXCDUQ=="))
        let inflated = try CompressedBody.inflate(ByteBuffer(bytes: deflated), encoding: "deflate", limit: 1 << 20)
        #expect(String(buffer: inflated) == text)
        // The same by Python's gzip.compress, as Node's SDK sends a body.
        let gzipped = try #require(Data(base64Encoded: "H4sIAAAAAAACA6tWKslXslJQcq0oyM9LzSsJKC3OCMnPTs2LTkxKjlWqrR6VH5UflR+VH5UflR+VH5UflR+VH5UflaeSPABGUf0ZgAwAAA=="))
        #expect(String(buffer: try CompressedBody.inflate(ByteBuffer(bytes: gzipped), encoding: "gzip", limit: 1 << 20)) == text)
        #expect(throws: CompressedBody.Refusal.self) { try CompressedBody.inflate(ByteBuffer(bytes: deflated), encoding: "deflate", limit: 100) }
        #expect(throws: CompressedBody.Refusal.self) { try CompressedBody.inflate(ByteBuffer(string: "not compressed"), encoding: "gzip", limit: 1 << 20) }
        #expect(throws: CompressedBody.Refusal.self) {
            try CompressedBody.inflate(ByteBuffer(bytes: deflated.prefix(deflated.count / 2)), encoding: "deflate", limit: 1 << 20)
        }
    }
}
