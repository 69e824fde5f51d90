import Foundation
import HTTPTypes
import HuddleCore
import HuddleServer
import HuddlePostgres
import HuddleSQLite
import HuddlePostgresTestSupport
import HuddleTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Prometheus
import Synchronization
import Testing

/// The application through Hummingbird's router test framework, on every store backend.
@Suite struct ServerRouterTests {
    /// Every store backend the server runs on.
    enum Backend: String, CaseIterable, Sendable {
        case memory, sqlite, postgres

        /// Runs `body` with a new, empty store of this backend (PostgreSQL: a fresh database, its store
        /// running for the duration).
        func withStore<Value: Sendable>(
            retention: ChangeRetention = ChangeRetention(), _ body: (any NotificationStore) async throws -> Value
        ) async throws -> Value {
            switch self {
            case .memory:
                return try await body(InMemoryNotificationStore(retention: retention))
            case .sqlite:
                let folder = try TemporaryDirectory()
                var configuration = SQLiteNotificationStore.Configuration()
                configuration.retention = retention
                let value = try await body(try SQLiteNotificationStore(path: folder.url.appendingPathComponent("huddle.sqlite").path, configuration: configuration))
                // The folder (and the file) go once the body is done with the store.
                withExtendedLifetime(folder) {}
                return value
            case .postgres:
                var configuration = TestDatabase.testConfiguration()
                configuration.retention = retention
                return try await TestDatabase.withFresh { database in
                    try await TestDatabase.withStore(database, configuration: configuration) { store in try await body(store) }
                }
            }
        }
    }

    /// Runs `body` with the application on a new store of `backend`, through Hummingbird's router tests.
    static func withApplication(_ backend: Backend, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        var configuration = ServerConfiguration()
        configuration.developmentMode = true
        try await backend.withStore { store in
            let application = Application(router: buildRouter(configuration: configuration, store: store, metrics: PrometheusCollectorRegistry()))
            try await application.test(.router, body)
        }
    }

    static func json(_ buffer: ByteBuffer) throws -> JSONValue {
        try JSONParser.parse(buffer.readableBytesView)
    }

    @Test(arguments: Backend.allCases)
    func pushesGroupAndRenderThroughTheDeviceAPI(_ backend: Backend) async throws {
        try await Self.withApplication(backend) { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            let installed = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.apple.podcasts", method: .put, headers: auth,
                body: ByteBuffer(string: #"{"categories": [{"identifier": "episodes", "categorySummaryFormat": "%u more episodes from %@"}]}"#))
            #expect(installed.status == .ok)
            for (index, (show, count)) in [("Song by Song", 3), ("Teja", 1), ("Song by Song", 3), ("The Talk Show", 2)].enumerated() {
                let response = try await client.execute(
                    uri: "/3/device/\(token)", method: .post, headers: [HTTPField.Name("apns-topic")!: "com.apple.podcasts", HTTPField.Name("apns-collapse-id")!: "p\(index)"],
                    body: ByteBuffer(string: #"{"aps": {"alert": {"body": "new", "summary-arg": "\#(show)", "summary-arg-count": \#(count)}, "category": "episodes"}}"#))
                #expect(response.status == .ok)
                #expect(response.headers[HTTPField.Name("apns-id")!] != nil)
            }
            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try Self.json($0.body) }
            #expect(center["groups"]?.arrayValue?.first?["summary"] == "7 more episodes from Song by Song and Teja")
        }
    }

    @Test func theDeviceAPIWantsTheSecret() async throws {
        try await Self.withApplication(.memory) { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let anonymous = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get)
            #expect(anonymous.status == .unauthorized)
            let wrong = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == .unauthorized)
            #expect(try Self.json(wrong.body)["error"] == "unknown device or wrong secret")

            // Once the device is in memory, its secret is checked against the record the session holds.
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            #expect(try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth).status == .ok)
            let wrongAgain = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(wrongAgain.status == .unauthorized)
            // A deleted device answers no one, not even with its secret.
            #expect(try await client.execute(uri: "/v1/devices/\(token)", method: .delete, headers: auth).status == .noContent)
            #expect(try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth).status == .unauthorized)
        }
    }

    @Test func aPushWithoutAnAPNsIDIsAnsweredWithOneOfTheServersClock() async throws {
        // 2025-11-26 08:00:00.123 UTC: 0x19abf2d2c7b milliseconds since 1970, the start of a version 7 UUID.
        var configuration = ServerConfiguration()
        configuration.developmentMode = true
        configuration.clock = { Date(timeIntervalSince1970: 1_764_144_000.123) }
        let application = Application(router: buildRouter(configuration: configuration, store: InMemoryNotificationStore(), metrics: PrometheusCollectorRegistry()))
        try await application.test(.router) { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
            let token = try #require(device["token"]?.stringValue)
            let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
            #expect(try await client.execute(uri: "/v1/devices/\(token)/apps/a.b", method: .put, headers: auth, body: ByteBuffer(string: "{}")).status == .ok)
            let response = try await client.execute(
                uri: "/3/device/\(token)", method: .post, headers: [HTTPField.Name("apns-topic")!: "a.b"],
                body: ByteBuffer(string: #"{"aps": {"alert": "hi"}}"#))
            #expect(response.status == .ok)
            let apnsID = try #require(response.headers[HTTPField.Name("apns-id")!])
            #expect(apnsID.hasPrefix("019abf2d-2c7b-7"), "\(apnsID)")
        }
    }

    /// One clock (issue 57): what a center's reader is shown of a scheduled Focus, and when a deleted device went, are
    /// the server's clock's (the one pushes arrive by), not the machine's.
    @Test(arguments: Backend.allCases)
    func theCenterAndTheStoreReadTheServersClock(_ backend: Backend) async throws {
        // 2027-01-15 08:00 UTC: before the Focus's 09:00; two hours later, in it.
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = ServerConfiguration()
        configuration.developmentMode = true
        configuration.clock = { now.withLock { $0 } }
        try await backend.withStore { store in
            let application = Application(router: buildRouter(configuration: configuration, store: store, metrics: PrometheusCollectorRegistry()))
            try await application.test(.router) { client in
                let device = try await client.execute(uri: "/v1/devices", method: .post) { try Self.json($0.body) }
                let token = try #require(device["token"]?.stringValue)
                let auth: HTTPFields = [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"]
                #expect(try await client.execute(uri: "/v1/devices/\(token)/apps/a.b", method: .put, headers: auth, body: ByteBuffer(string: "{}")).status == .ok)
                let focus = #"{"timeZone": "UTC", "focus": {"name": "Work", "schedule": {"from": "09:00", "to": "17:00"}}}"#
                #expect(try await client.execute(uri: "/v1/devices/\(token)/settings", method: .patch, headers: auth, body: ByteBuffer(string: focus)).status == .ok)
                func focusIsActive() async throws -> JSONValue? {
                    let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: auth) { try Self.json($0.body) }
                    return center["device"]?["focus"]?["active"]
                }
                #expect(try await focusIsActive() == .bool(false))
                now.withLock { $0 = $0.addingTimeInterval(2 * 3_600) }
                #expect(try await focusIsActive() == .bool(true))
                #expect(try await client.execute(uri: "/v1/devices/\(token)", method: .delete, headers: auth).status == .noContent)
                #expect(try await store.unregistrationDate(token: token) == now.withLock { $0 })
            }
        }
    }

    @Test func unknownPathsUnderThreeAreBadPath() async throws {
        try await Self.withApplication(.memory) { client in
            let response = try await client.execute(uri: "/3/push", method: .post, headers: [HTTPField.Name("apns-topic")!: "a.b"])
            #expect(response.status == .notFound)
            #expect(try Self.json(response.body) == ["reason": "BadPath"])
        }
    }
}
