import Foundation
import HuddleCore
import HuddlePostgres
import HuddleServer
import HuddleTestSupport
import Hummingbird
import HummingbirdTesting
import Testing

/// Error answers: each type of error has its status, and a database's own words never reach a client.
@Suite(.timeLimit(.minutes(1))) struct ErrorAnswerTests {
    @Test func aDatabaseFailureAnswers500WithoutTheDatabasesWords() async throws {
        try await TestDatabase.withFresh { database in
            // A schema this build did not migrate: PostgreSQL names the missing table in its message.
            try await TestDatabase.administer(database, "ALTER TABLE devices RENAME TO devices_elsewhere")
            try await TestDatabase.withStore(database) { store in
                try await ServerLimitsTests.withApplication(store: store) { client in
                    let response = try await client.execute(uri: "/v1/devices", method: .post)
                    #expect(response.status == .internalServerError)
                    let body = String(buffer: response.body)
                    #expect(try ServerLimitsTests.error(response.body) == "the database failed unexpectedly")
                    #expect(!body.contains("devices") && !body.contains("SQLSTATE") && !body.contains("PostgreSQL"))
                }
            }
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
