import Foundation
import HuddleCore
@testable import HuddleServer
import HuddleSQLite
import HuddleTestSupport
import NIOCore
import Testing

/// Device sessions as several servers sharing one store run them: each applies the store's numbered
/// changes in order, catches up on those another committed, and ends with the same center as a fresh
/// load of the store (a recomputation of every group from its notifications).
@Suite(.timeLimit(.minutes(1))) struct DeviceSessionTests {
    static let token = StoreConformance.token
    static let app = "com.example.chat"

    /// Runs `body` with a new store of `backend` holding one device, with one app whose summaries take
    /// arguments.
    static func withStore(
        _ backend: ServerRouterTests.Backend, retention: ChangeRetention = ChangeRetention(),
        _ body: (any NotificationStore) async throws -> Void
    ) async throws {
        try await backend.withStore(retention: retention) { store in
            try await prepare(store)
            try await body(store)
        }
    }

    static func prepare(_ store: any NotificationStore) async throws {
        try await store.createDevice(DeviceRecord(token: token, secretHash: "x", name: "Test", createdAt: Date()))
        _ = try await store.saveApp(
            AppRecord(topic: app, categories: [NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%u more messages from %@"))]),
            device: token)
    }

    static func request(_ id: String, thread: String, sender: String) -> NotificationRequest {
        var content = NotificationContent(title: .plain(sender), body: .plain(id))
        content.threadIdentifier = thread
        content.categoryIdentifier = "msg"
        content.summaryArgument = sender
        return NotificationRequest(identifier: id, content: content)
    }

    static func rendered(_ session: DeviceSession) async -> JSONValue {
        await session.read { $0.render(for: Viewer()).json }
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func anAppPastItsLimitLosesItsOldestBeforeThePushIsAnswered(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend) { store in
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store, notificationsPerApp: 3))
            for index in 0..<5 {
                let date = Date(timeIntervalSince1970: 1_800_000_000 + Double(index))
                try await session.deliver(Self.request("n\(index)", thread: "t", sender: "Teja"), app: Self.app, at: date)
                #expect(await session.read { $0.notificationCount(app: Self.app) } == min(index + 1, 3))
            }
            #expect(await session.read { $0.deliveredNotifications(app: Self.app).map(\.identifier) } == ["n4", "n3", "n2"])
            // Stored as removals: another server loading the device has the same center.
            let fresh = try #require(try await DeviceSession.load(token: Self.token, store: store))
            #expect(await fresh.read { $0.deliveredNotifications(app: Self.app).map(\.identifier) } == ["n4", "n3", "n2"])
        }
    }

    @Test func theTrimIsPartOfTheDeliveryThatPassesTheLimit() async throws {
        try await Self.withStore(.memory) { store in
            let recording = CommitQueueTests.RecordingStore(store)
            recording.release()
            let queue = CommitQueue(store: RecordingWrapper(recording))
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store, commits: queue, notificationsPerApp: 3))
            for index in 0..<4 {
                try await session.deliver(Self.request("n\(index)", thread: "t", sender: "Teja"), app: Self.app, at: Date())
            }
            // Four transactions, each one delivery: no removal was committed on its own.
            #expect(recording.batchSizes == [1, 1, 1, 1])
            #expect(recording.writes.allSatisfy { if case .deliver = $0 { true } else { false } })
            // The fourth delivery (change 5) took the app past 3; its transaction removed n0 as change 6.
            #expect(await session.appliedChange == 6)
            #expect(try await store.changes(device: Self.token, after: 5)?.map(\.kind) == [.removed(app: Self.app, identifiers: ["n0"])])
        }
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func concurrentPushesPastTheLimitLeaveTheNewest(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend) { store in
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store, notificationsPerApp: 3))
            let date = Date()
            let numbered = try await withThrowingTaskGroup { group in
                for index in 0..<20 {
                    group.addTask {
                        let identifier = "n\(index)"
                        let change = try await session.deliver(Self.request(identifier, thread: "t", sender: "Teja"), app: Self.app, at: date)
                        return (number: try #require(change).number, identifier: identifier)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // Each removal was counted once: exactly the limit is left, the three committed last.
            let lastThree = numbered.sorted { $0.number > $1.number }.prefix(3).map(\.identifier)
            #expect(await session.read { $0.deliveredNotifications(app: Self.app).map(\.identifier) } == lastThree)
            #expect(try await store.snapshot(device: Self.token)?.notifications.map(\.identifier) == lastThree.reversed())
        }
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func aSecondServerCatchesUpWithTheFirst(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend) { store in try await Self.secondServerCatchesUp(store) }
    }

    static func secondServerCatchesUp(_ store: any NotificationStore) async throws {
        let first = try #require(try await DeviceSession.load(token: token, store: store))
        let second = try #require(try await DeviceSession.load(token: token, store: store))
        var stream = CenterPublisherTests.Events(await second.subscribe(
            CenterView(viewer: Viewer(), format: .json), resumingAfter: 1, bufferBytes: 1 << 20))

        _ = try await first.deliver(request("a", thread: "t", sender: "Teja"), app: app, at: Date())
        _ = try await first.deliver(request("b", thread: "t", sender: "Michele"), app: app, at: Date())
        _ = try await first.remove(app: app, identifiers: ["a"])
        #expect(await second.appliedChange == 1)
        try await second.catchUp(through: 4)
        #expect(await second.appliedChange == 4)
        #expect(await rendered(second) == rendered(first))

        // Change 2 delivered "a", which change 4 removed: caught up afterwards, neither shows; the stream
        // goes from the state at 1 to the state at 4 with change 3 alone.
        let event = try await stream.require()
        #expect(event.id == "3" && event.name == "change")
        #expect(event.data["delivered"] == ["b"])

        // A write through the second server that skips numbers it has not seen reads them first.
        // Its own change is then applied by that reading, and still reported as its own.
        _ = try await first.deliver(request("c", thread: "u", sender: "Kim"), app: app, at: Date())
        #expect(try await second.deliver(request("d", thread: "u", sender: "Kim"), app: app, at: Date())?.number == 6)
        #expect(await second.appliedChange == 6)
        #expect(await rendered(second)["groups"]?.arrayValue?.first?["count"] == 2)
        _ = try await first.deliver(request("e", thread: "u", sender: "Kim"), app: app, at: Date())
        #expect(try await second.remove(app: app, identifiers: ["c", "nope"]) == ["c"])
        #expect(await second.appliedChange == 8)

        // An app installed through one server is known to the other when a push for it arrives.
        _ = try await first.updateApp(topic: "com.example.other", maximumApps: 100) { _ in AppRecord(topic: "com.example.other") }
        #expect(try await second.knowsApp("com.example.other"))
        #expect(try await first.deleteApp(topic: "com.example.other"))
        try await second.catchUp()
        #expect(await second.read { $0.registration(for: "com.example.other") } == nil)
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func concurrentWritersThroughTwoServersKeepEveryGroupExact(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend) { store in try await Self.concurrentWriters(store) }
    }

    static func concurrentWriters(_ store: any NotificationStore) async throws {
        let servers = [
            try #require(try await DeviceSession.load(token: token, store: store)),
            try #require(try await DeviceSession.load(token: token, store: store)),
        ]
        let senders = ["Teja", "Michele", "Kritarth", "Kim"]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let session = servers[writer % 2]
                    for index in 0..<40 {
                        let id = "n\(index % 25)"  // writers replace one another's notifications too
                        _ = try await session.deliver(
                            request(id, thread: "t\(index % 3)", sender: senders[(writer + index) % 4]), app: app, at: Date())
                        if index % 5 == 4 {
                            _ = try await session.remove(app: app, identifiers: ["n\((index + writer) % 25)"])
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        for session in servers { try await session.catchUp() }
        let fresh = try #require(try await DeviceSession.load(token: token, store: store))
        #expect(await servers[0].appliedChange == fresh.appliedChange)
        #expect(await servers[1].appliedChange == fresh.appliedChange)
        #expect(await rendered(servers[0]) == rendered(fresh))
        #expect(await rendered(servers[1]) == rendered(fresh))
        #expect(await fresh.read { $0.notificationCount } > 0)
    }

    /// Two writers' pushes dated within one millisecond may commit in the other order. The store keeps dates to the
    /// millisecond, so a fresh load ties them and orders them by sequence; the session that committed them must too.
    @Test(arguments: ServerRouterTests.Backend.allCases)
    func pushesDatedWithinOneMillisecondOrderAsTheStoreOrdersThem(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend) { store in
            let session = try #require(try await DeviceSession.load(token: Self.token, store: store))
            let instant = Date(milliseconds: 1_800_000_000_000)
            try await session.deliver(Self.request("later", thread: "t", sender: "Teja"), app: Self.app, at: instant.addingTimeInterval(0.0004))
            try await session.deliver(Self.request("earlier", thread: "t", sender: "Kim"), app: Self.app, at: instant.addingTimeInterval(0.0001))
            let fresh = try #require(try await DeviceSession.load(token: Self.token, store: store))
            // Committed second, so newer: it leads the group on both.
            #expect(await session.read { $0.deliveredNotifications(app: Self.app).map(\.identifier) } == ["earlier", "later"])
            #expect(await Self.rendered(session) == Self.rendered(fresh))
        }
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func aServerTooFarBehindReloadsAndItsStreamsStartOver(_ backend: ServerRouterTests.Backend) async throws {
        try await Self.withStore(backend, retention: ChangeRetention(changesPerDevice: 10)) { store in try await Self.farBehind(store) }
    }

    static func farBehind(_ store: any NotificationStore) async throws {
        let first = try #require(try await DeviceSession.load(token: token, store: store))
        let behind = try #require(try await DeviceSession.load(token: token, store: store))
        var stream = CenterPublisherTests.Events(await behind.subscribe(
            CenterView(viewer: Viewer(), format: .json), resumingAfter: 1, bufferBytes: 1 << 20))
        for index in 0..<30 {
            _ = try await first.deliver(request("n\(index)", thread: "t\(index % 4)", sender: "Teja"), app: app, at: Date())
        }
        try await behind.catchUp()
        #expect(await behind.appliedChange == 31)
        #expect(await rendered(behind) == rendered(first))
        let event = try await stream.require()
        #expect(event.id == "31" && event.name == "center")
    }
}

/// The server's memory of device centers stays bounded, without dropping a watched one.
@Suite(.timeLimit(.minutes(1))) struct DeviceCentersTests {
    @Test func theLeastRecentlyUsedUnwatchedCentersAreLetGo() async throws {
        let store = InMemoryNotificationStore()
        let tokens = ["a", "b", "c"].map { String(repeating: $0, count: 64) }
        for token in tokens {
            try await store.createDevice(DeviceRecord(token: token, secretHash: "x", name: token, createdAt: Date()))
        }
        let centers = DeviceCenters(store: store, maximumSessions: 2)
        let first = try #require(try await centers.session(for: tokens[0]))
        let watched = try #require(try await centers.session(for: tokens[1]))
        let stream = await watched.subscribe(CenterView(viewer: Viewer(), format: .json), resumingAfter: nil, bufferBytes: 1 << 20)
        _ = try await centers.session(for: tokens[0])
        _ = try await centers.session(for: tokens[2])
        // Over the limit: the second is the least recently used, but it is watched; the first goes.
        #expect(Set(centers.loadedSessions.map(\.token)) == [tokens[1], tokens[2]])
        let again = try #require(try await centers.session(for: tokens[0]))
        #expect(again !== first)
        #expect(Set(centers.loadedSessions.map(\.token)) == [tokens[0], tokens[1]])
        #expect(centers.loadedSessions.contains { $0 === watched })
        #expect(try await centers.session(for: String(repeating: "d", count: 64)) == nil)
        _ = stream
    }
}
