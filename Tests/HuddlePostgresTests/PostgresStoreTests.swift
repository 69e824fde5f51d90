import Foundation
import HuddleCore
import HuddlePostgres
import HuddlePostgresTestSupport
import HuddleTestSupport
import Testing

/// The conformance suite, and what is particular to PostgreSQL, against a real server: each test has a
/// database of its own, so they run in parallel.
@Suite struct PostgresStoreTests {
    @Test(arguments: StoreConformance.checks)
    func conforms(_ check: String) async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { store in
                try await StoreConformance.check(check, store: store)
            }
        }
    }

    @Test func forgetsOldChanges() async throws {
        var configuration = TestDatabase.testConfiguration()
        configuration.retention = ChangeRetention(changesPerDevice: 10)
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database, configuration: configuration) { store in
                try await StoreConformance.checkRetention(store: store)
            }
        }
    }

    @Test func dataOutlivesTheStoreThatWroteIt() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { store in
                try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
            }
            try await TestDatabase.withStore(database) { store in
                let snapshot = try await store.snapshot(device: StoreConformance.token)
                #expect(snapshot?.notifications.count == 3)
                #expect(snapshot?.lastChange == 5)
            }
        }
    }

    @Test func corruptRowsAreReportedNotGuessed() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { store in
                try await StoreConformance.check("notifications round-trip exactly, oldest first", store: store)
                try await TestDatabase.administer(database, "UPDATE notifications SET content = '{broken' WHERE identifier = 'b'")
                await #expect {
                    _ = try await store.snapshot(device: StoreConformance.token)
                } throws: { error in
                    "\(error)".contains("stored notification b is not valid JSON")
                }
            }
        }
    }

    /// A delivery commits before its app is trimmed: a trim that fails is logged, and the delivery is still
    /// answered as stored (the next delivery past the limit trims again).
    @Test func aFailedTrimLeavesTheDeliveryStored() async throws {
        let log = LogRecorder()
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database, logger: log.logger()) { store in
                let token = StoreConformance.token
                try await store.createDevice(DeviceRecord(token: token, secretHash: "h", name: "n", createdAt: Date()))
                _ = try await store.saveApp(AppRecord(topic: "com.example.app"), device: token)
                func push(_ id: String) async throws -> [DeviceChange] {
                    let request = NotificationRequest(identifier: id, content: NotificationContent(title: .plain(id)))
                    return try await store.commit([.deliver(request, app: "com.example.app", at: Date(), device: token, notificationsPerApp: 1)])[0].get()
                }
                _ = try await push("first")
                try await TestDatabase.administer(
                    database,
                    "CREATE FUNCTION refuse_removal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no removals today'; END $$",
                    "CREATE TRIGGER refuse_removal BEFORE DELETE ON notifications FOR EACH ROW EXECUTE FUNCTION refuse_removal()")
                #expect(try await push("second").map(\.number) == [3])
                #expect(log.messages.contains { $0.contains("could not trim") && $0.contains("no removals today") })
                try await TestDatabase.administer(database, "DROP TRIGGER refuse_removal ON notifications")
                #expect(try await push("third").last?.kind == .removed(app: "com.example.app", identifiers: ["first", "second"]))
            }
        }
    }

    /// Two servers writing to one device at once share one sequence of numbers, without gaps.
    @Test func twoServersNumberOneDeviceWithoutGaps() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { first in
                try await TestDatabase.withStore(database) { second in
                    let token = StoreConformance.token
                    try await first.createDevice(DeviceRecord(token: token, secretHash: "h", name: "n", createdAt: Date()))
                    _ = try await second.saveApp(AppRecord(topic: "com.example.app"), device: token)
                    let numbers = try await withThrowingTaskGroup(of: UInt64.self) { group in
                        for index in 1...100 {
                            let store = index.isMultiple(of: 2) ? first : second
                            group.addTask {
                                let request = NotificationRequest(identifier: "n\(index)", content: NotificationContent(title: .plain("\(index)")))
                                return try await store.deliver(request, app: "com.example.app", at: Date(), device: token).number
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(numbers.sorted() == Array(2...101))
                    #expect(try await first.changes(device: token, after: 0)?.map(\.number) == Array(1...101))
                    #expect(try await second.snapshot(device: token)?.lastChange == 101)
                }
            }
        }
    }
}
