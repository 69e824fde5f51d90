import Foundation
import HTTPTypes
import HuddleCore
import HuddlePostgres
@testable import HuddleServer
import HuddlePostgresTestSupport
import HuddleTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Error answers: each type of error has its status, and a database's own words never reach a client.
@Suite(.timeLimit(.minutes(1))) struct ErrorAnswerTests {
    @Test func aDatabaseFailureAnswers500WithoutTheDatabasesWords() async throws {
        try await TestDatabase.withFresh { database in
            // A schema this build did not migrate: PostgreSQL names the missing table in its message.
            try await TestDatabase.administer(database, "ALTER TABLE devices RENAME TO devices_elsewhere")
            let log = LogRecorder()
            try await TestDatabase.withStore(database) { store in
                try await ServerLimitsTests.withApplication(store: store, logger: log.logger()) { client in
                    let response = try await client.execute(uri: "/v1/devices", method: .post)
                    #expect(response.status == .internalServerError)
                    let body = String(buffer: response.body)
                    #expect(try ServerLimitsTests.error(response.body) == "the database failed unexpectedly")
                    #expect(!body.contains("devices") && !body.contains("SQLSTATE") && !body.contains("PostgreSQL"))
                }
            }
            // The database's own words go to the log, for the operator.
            #expect(log.messages.contains { $0.hasPrefix("error store: the database failed unexpectedly") && $0.contains("SQLSTATE 42P01") })
        }
    }

    /// A push that the store cannot take now is answered as APNs answers when it is unavailable (503, which
    /// APNs clients retry), as the device API answers it, not as a server fault.
    @Test func aPushToAStoreThatCannotBeReachedIs503ServiceUnavailable() async throws {
        let store = RecordingWrapper(CommitQueueTests.RecordingStore(InMemoryNotificationStore()), isUnavailable: true)
        let log = LogRecorder()
        defer { #expect(log.messages.contains { $0.contains("the database cannot be reached") }) }
        try await ServerLimitsTests.withApplication(store: store, logger: log.logger()) { client in
            let device = try await client.execute(uri: "/v1/devices", method: .post) { try JSONParser.parse($0.body.readableBytesView) }
            let token = try #require(device["token"]?.stringValue)
            let push = try await client.execute(
                uri: "/3/device/\(token)", method: .post, headers: [HTTPField.Name("apns-topic")!: "com.example.app"],
                body: ByteBuffer(string: #"{"aps": {"alert": "x"}}"#))
            #expect(push.status == .serviceUnavailable)
            #expect(try JSONParser.parse(push.body.readableBytesView)["reason"]?.stringValue == "ServiceUnavailable")
            let center = try await client.execute(uri: "/v1/devices/\(token)/center", method: .get, headers: [.authorization: "Bearer \(try #require(device["secret"]?.stringValue))"])
            #expect(center.status == .serviceUnavailable)
        }
    }

    @Test func refusedCategoriesAndUnreadableBodiesAre400() async throws {
        try await ServerLimitsTests.withApplication { client in
            let (token, auth) = try await ServerLimitsTests.register(client)
            let refused = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.one", method: .put, headers: auth,
                body: ByteBuffer(string: #"{"categories": [{"identifier": "msg", "categorySummaryFormat": "%s more"}]}"#))
            #expect(refused.status == .badRequest)
            #expect(try ServerLimitsTests.error(refused.body)?.contains("%s") == true)
            let unreadable = try await client.execute(
                uri: "/v1/devices/\(token)/apps/com.example.one", method: .put, headers: auth, body: ByteBuffer(string: #"{"name": 7}"#))
            #expect(unreadable.status == .badRequest)
            let unknownRoute = try await client.execute(uri: "/nowhere", method: .get)
            #expect(unknownRoute.status == .notFound)
            #expect(try ServerLimitsTests.error(unknownRoute.body) != nil)
        }
    }
}
