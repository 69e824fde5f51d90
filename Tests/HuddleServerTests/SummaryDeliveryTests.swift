import Foundation
import HuddleCore
@testable import HuddleServer
import HuddleTestSupport
import Logging
import Synchronization
import Testing

/// The summary service on an injected clock: nothing before a summary's time; at it, the summary comes through the
/// device's session when it is in memory (its center shows it at once), and in the store alone when it is not, which a
/// session loaded later reads.
@Suite(.timeLimit(.minutes(1))) struct SummaryDeliveryTests {
    static let token = StoreConformance.token
    static let app = StoreConformance.summaryApp

    final class Clock: Sendable {
        let now: Mutex<Date>
        init(_ date: Date) { now = Mutex(date) }
        func set(_ date: Date) { now.withLock { $0 = date } }
        func read() -> Date { now.withLock { $0 } }
    }

    static func held(_ store: any NotificationStore) async throws -> [String] {
        try await store.snapshot(device: token)?.notifications.filter { $0.mark == .held }.map(\.identifier).sorted() ?? []
    }

    @Test(arguments: ServerRouterTests.Backend.allCases)
    func aSummaryComesAtItsTimeThroughTheLoadedSessionOrTheStore(_ backend: ServerRouterTests.Backend) async throws {
        try await backend.withStore { store in
            try await StoreConformance.deviceWithSummary(store)
            let centers = DeviceCenters(store: store)
            let clock = Clock(StoreConformance.start)
            let service = SummaryDelivery(centers: centers, clock: { clock.read() }, logger: Logger(label: "test"))
            let session = try #require(try await centers.session(for: Self.token))
            for id in ["a", "b"] {
                try await session.deliver(StoreConformance.request(id, level: .active), app: Self.app, at: StoreConformance.start)
            }
            #expect(try await Self.held(store) == ["a", "b"])
            #expect(await session.read { $0.notificationCount } == 0)

            clock.set(StoreConformance.nextMorning.addingTimeInterval(-1))
            await service.deliverDue()
            #expect(try await Self.held(store) == ["a", "b"], "not before its time")

            clock.set(StoreConformance.nextMorning)
            await service.deliverDue()
            #expect(try await Self.held(store) == [])
            #expect(await session.read { $0.notificationCount } == 2, "the loaded session shows the summary at once")
            #expect(try await store.snapshot(device: Self.token)?.summary?.count == 2)

            // A device nobody has loaded: its summary comes in the store, and a session loaded afterwards shows it.
            let idle = DeviceCenters(store: store)
            _ = try await store.deliver(
                StoreConformance.request("c", level: .passive), app: Self.app, at: StoreConformance.nextMorning.addingTimeInterval(60), device: Self.token)
            clock.set(StoreConformance.nextMorning.addingTimeInterval(86_400))
            await SummaryDelivery(centers: idle, clock: { clock.read() }, logger: Logger(label: "test")).deliverDue()
            #expect(idle.loadedSessions.isEmpty, "a summary loads no session")
            #expect(try await Self.held(store) == [])
            let loaded = try #require(try await idle.session(for: Self.token))
            #expect(await loaded.read { $0.notificationCount } == 3)
        }
    }
}
