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

    /// What the service keeps from round to round: a device whose settings the store did not send again (it had them
    /// as of the device's last change) has its next summary from what was kept, worked out again only when its oldest
    /// held notification changes; a device that holds nothing any more is forgotten.
    @Test func summaryTimesAreRememberedUntilTheDeviceChanges() throws {
        let times = SummaryTimes()
        let settings = try DeviceSettings(timeZone: "Europe/Paris", summary: try SummarySchedule(isEnabled: true, times: [TimeOfDay(hour: 8, minute: 0)!]))
        let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC, 09:00 in Paris
        let nextMorning = settings.summary.nextDelivery(atOrAfter: start, in: settings.clock)
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: start, lastChange: 4, settings: settings)], by: start) == [])
        #expect(times.known == ["a": 4])
        // Not sent again: the kept times decide, for the same oldest notification and a later one alike.
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: start, lastChange: 4, settings: nil)], by: nextMorning) == ["a"])
        let later = nextMorning.addingTimeInterval(60)
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: later, lastChange: 4, settings: nil)], by: nextMorning) == [])
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: later, lastChange: 4, settings: nil)], by: later.addingTimeInterval(86_400)) == ["a"])
        // Settings changed (a later change, sent again): the new times decide from then on.
        let evening = try DeviceSettings(timeZone: "Europe/Paris", summary: try SummarySchedule(isEnabled: true, times: [TimeOfDay(hour: 20, minute: 0)!]))
        let eveningSummary = evening.summary.nextDelivery(atOrAfter: later, in: evening.clock)
        #expect(eveningSummary < later.addingTimeInterval(86_400))
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: later, lastChange: 9, settings: evening)], by: eveningSummary) == ["a"])
        #expect(times.known == ["a": 9])
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: later, lastChange: 9, settings: nil)], by: eveningSummary.addingTimeInterval(-1)) == [])
        // Holding nothing any more: forgotten, and a device not known is read again next round rather than guessed.
        #expect(times.due([], by: later) == [] && times.known.isEmpty)
        #expect(times.due([HoldingDevice(token: "a", oldestHeld: start, lastChange: 4, settings: nil)], by: nextMorning) == [])
    }
}
