import Foundation
import HuddleCore
import HuddlePostgres
import HuddlePostgresTestSupport
import HuddleTestSupport
import Testing

/// Two store instances on one database stand for two servers: what one commits reaches the other as a
/// notice, and never comes back to itself.
@Suite struct PostgresNoticeTests {
    static let token = StoreConformance.token

    static func device(_ token: String = token) -> DeviceRecord {
        DeviceRecord(token: token, secretHash: "hash", name: "Test iPhone", createdAt: Date(timeIntervalSince1970: 1_528_304_400))
    }

    static func deliver(_ id: String, through store: PostgresNotificationStore) async throws -> UInt64 {
        let request = NotificationRequest(identifier: id, content: NotificationContent(title: .plain(id)))
        return try await store.deliver(request, app: "com.example.app", at: Date(), device: token).number
    }

    /// Two running stores on one fresh database, each with a recorder that subscribed before it listened,
    /// and that has seen its listener come up (the first `.resync`).
    static func withTwoServers(
        _ body: (PostgresURL, (store: PostgresNotificationStore, notices: NoticeRecorder), (store: PostgresNotificationStore, notices: NoticeRecorder)) async throws -> Void
    ) async throws {
        try await TestDatabase.withFresh { database in
            let first = PostgresNotificationStore(database: database, configuration: TestDatabase.testConfiguration(), logger: TestDatabase.logger)
            let second = PostgresNotificationStore(database: database, configuration: TestDatabase.testConfiguration(), logger: TestDatabase.logger)
            let firstNotices = try NoticeRecorder.recording(first.noticesFromOtherServers())
            let secondNotices = try NoticeRecorder.recording(second.noticesFromOtherServers())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await first.run() }
                group.addTask { try await second.run() }
                defer { group.cancelAll() }
                try await firstNotices.wait(for: "the first listener to start") { notices, _ in notices == [.resync] }
                try await secondNotices.wait(for: "the second listener to start") { notices, _ in notices == [.resync] }
                try await body(database, (first, firstNotices), (second, secondNotices))
            }
        }
    }

    @Test func aCommittedChangeReachesTheOtherServerOnly() async throws {
        try await Self.withTwoServers { _, first, second in
            try await first.store.createDevice(Self.device())
            _ = try await first.store.saveApp(AppRecord(topic: "com.example.app"), device: Self.token)
            #expect(try await Self.deliver("a", through: first.store) == 2)
            try await second.notices.wait(forCount: 3, "changes 1 and 2")
            #expect(second.notices.notices == [.resync, .changed(device: Self.token, number: 1), .changed(device: Self.token, number: 2)])

            // The first store's next notice is the second's change 3: it never saw its own 1 and 2.
            #expect(try await Self.deliver("b", through: second.store) == 3)
            try await first.notices.wait(forCount: 2, "change 3")
            #expect(first.notices.notices == [.resync, .changed(device: Self.token, number: 3)])
            // Nor does the second see its own: the first's change 4, committed after it, is its next notice
            // (a listener gets notices in commit order).
            #expect(try await Self.deliver("c", through: first.store) == 4)
            try await second.notices.wait(forCount: 4, "change 4")
            #expect(second.notices.notices.last == .changed(device: Self.token, number: 4))
            #expect(second.notices.notices.count == 4)
        }
    }

    @Test func aDeletedDeviceReachesTheOtherServerOnly() async throws {
        try await Self.withTwoServers { _, first, second in
            try await first.store.createDevice(Self.device())
            #expect(try await second.store.deleteDevice(token: Self.token, at: Date()))
            try await first.notices.wait(forCount: 2, "the deletion")
            #expect(first.notices.notices == [.resync, .deviceDeleted(Self.token)])
            // Deleting what is gone says nothing.
            #expect(try await !first.store.deleteDevice(token: Self.token, at: Date()))
            try await first.store.createDevice(Self.device())
            #expect(try await first.store.deleteDevice(token: Self.token, at: Date()))
            try await second.notices.wait(forCount: 2, "the second deletion")
            #expect(second.notices.notices == [.resync, .deviceDeleted(Self.token)])
            #expect(first.notices.notices.count == 2)
        }
    }

    /// A write that changes nothing (rolled back) announces nothing; the next one carries on the numbers.
    @Test func writesThatChangeNothingAnnounceNothing() async throws {
        try await Self.withTwoServers { _, first, second in
            try await first.store.createDevice(Self.device())
            _ = try await first.store.saveApp(AppRecord(topic: "com.example.app"), device: Self.token)
            #expect(try await first.store.deleteNotifications(app: "com.example.app", identifiers: ["none"], device: Self.token) == nil)
            #expect(try await first.store.deleteApp(topic: "com.example.other", device: Self.token) == nil)
            await #expect(throws: StoreError.self) {
                try await first.store.deliver(
                    NotificationRequest(identifier: "x", content: NotificationContent()), app: "com.example.other", at: Date(), device: Self.token)
            }
            #expect(try await Self.deliver("a", through: first.store) == 2)
            try await second.notices.wait(forCount: 3, "changes 1 and 2")
            #expect(second.notices.notices == [.resync, .changed(device: Self.token, number: 1), .changed(device: Self.token, number: 2)])
        }
    }

    /// A lost listening connection is replaced, and the consumers told that notices may have been missed.
    /// (Every connection of both stores is cut: the listener's last query may be its heartbeat.)
    @Test func aLostListenerReconnectsAndAsksForAResync() async throws {
        try await Self.withTwoServers { database, first, second in
            // Each round ends the connections that exist as it runs; rounds repeat (at most five) until both
            // listeners have come back, so that the test does not rest on the timing of a single round.
            for _ in 0..<5 {
                try await TestDatabase.administer(
                    database,
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """)
                let reconnected: @Sendable ([ChangeNotice], Bool) -> Bool = { notices, _ in notices.count >= 2 && notices.allSatisfy { $0 == .resync } }
                if (try? await first.notices.wait(for: "a resync after reconnecting", timeout: .seconds(3), until: reconnected)) != nil,
                    (try? await second.notices.wait(for: "a resync after reconnecting", timeout: .seconds(3), until: reconnected)) != nil
                {
                    break
                }
            }
            #expect(first.notices.notices.count >= 2)
            #expect(second.notices.notices.count >= 2)
            #expect((first.notices.notices + second.notices.notices).allSatisfy { $0 == .resync })
            try await first.store.createDevice(Self.device())
            _ = try await first.store.saveApp(AppRecord(topic: "com.example.app"), device: Self.token)
            try await second.notices.wait(for: "a change after reconnecting") { notices, _ in notices.last == .changed(device: Self.token, number: 1) }
        }
    }

    /// Someone else's use of the channel (or a newer Huddle's notice) is ignored, not misread.
    @Test func payloadsItDoesNotUnderstandAreIgnored() async throws {
        try await Self.withTwoServers { database, first, second in
            try await TestDatabase.administer(
                database, "SELECT pg_notify('huddle_changes', 'hello')",
                #"SELECT pg_notify('huddle_changes', '{"server": "elsewhere", "device": "x", "change": -1}')"#,
                #"SELECT pg_notify('huddle_changes', '{"server": "elsewhere", "device": "cd", "deleted": true}')"#)
            try await first.store.createDevice(Self.device())
            _ = try await first.store.saveApp(AppRecord(topic: "com.example.app"), device: Self.token)
            try await second.notices.wait(forCount: 3, "the deletion and change 1")
            #expect(second.notices.notices == [.resync, .deviceDeleted("cd"), .changed(device: Self.token, number: 1)])
        }
    }

    @Test func everyConsumerGetsEveryNotice() async throws {
        try await Self.withTwoServers { _, first, second in
            let another = try NoticeRecorder.recording(second.store.noticesFromOtherServers())
            try await first.store.createDevice(Self.device())
            _ = try await first.store.saveApp(AppRecord(topic: "com.example.app"), device: Self.token)
            try await second.notices.wait(forCount: 2, "change 1")
            // The later consumer subscribed while the listener was up: it missed nothing, so no resync.
            try await another.wait(forCount: 1, "change 1")
            #expect(await another.notices == [.changed(device: Self.token, number: 1)])
        }
    }

    @Test func noticesEndAtShutdown() async throws {
        try await TestDatabase.withFresh { database in
            let store = PostgresNotificationStore(database: database, configuration: TestDatabase.testConfiguration(), logger: TestDatabase.logger)
            let notices = try NoticeRecorder.recording(store.noticesFromOtherServers())
            let running = Task { try await store.run() }
            try await notices.wait(for: "the listener to start") { notices, _ in notices == [.resync] }
            running.cancel()
            try await running.value
            try await notices.wait(for: "the stream to finish") { _, finished in finished }
            // Asking after shutdown gets a stream that has ended already.
            let late = try NoticeRecorder.recording(store.noticesFromOtherServers())
            try await late.wait(for: "the late stream to finish") { _, finished in finished }
        }
    }
}
