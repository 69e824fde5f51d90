import Foundation
import HuddleCore
import HuddlePostgres
import HuddlePostgresTestSupport
import HuddleTestSupport
import Testing

/// Two servers on one PostgreSQL database and the person's settings (issue 43): a summary is delivered once however
/// many servers try at once, pushes that race it are each held once or delivered once, and a push that races a
/// settings change is decided under the settings its change number follows.
@Suite struct PostgresSummaryTests {
    static let token = StoreConformance.token
    static let app = StoreConformance.summaryApp

    @Test func twoServersDeliverEachSummaryOnceWhilePushesArrive() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { first in
                try await TestDatabase.withStore(database) { second in
                    try await StoreConformance.deviceWithSummary(first)
                    let pushes = 60
                    let changes = try await withThrowingTaskGroup(of: [DeviceChange].self) { group in
                        for index in 0..<pushes {
                            let store = index.isMultiple(of: 2) ? first : second
                            group.addTask {
                                let request = StoreConformance.request("n\(index)", level: .active)
                                _ = try await store.commit([
                                    .deliver(request, app: Self.app, at: StoreConformance.start.addingTimeInterval(Double(index)), device: Self.token)
                                ])
                                return []
                            }
                            if index.isMultiple(of: 6) {
                                group.addTask { try await store.deliverSummaries(device: Self.token, dueBy: StoreConformance.nextMorning) }
                            }
                        }
                        return try await group.reduce(into: []) { $0 += $1 }
                    }
                    // What is still held after the race comes in one last summary, from either server, once.
                    async let fromFirst = first.deliverSummaries(device: Self.token, dueBy: StoreConformance.nextMorning)
                    async let fromSecond = second.deliverSummaries(device: Self.token, dueBy: StoreConformance.nextMorning)
                    let last = try await fromFirst + fromSecond
                    let summarized = (changes + last).flatMap { change -> [String] in
                        if case .summary(let summary) = change.kind { summary.notifications.map(\.identifier) } else { [] }
                    }
                    #expect(summarized.count == pushes, "each push in exactly one summary")
                    #expect(Set(summarized) == Set((0..<pushes).map { "n\($0)" }))
                    let snapshot = try #require(try await second.snapshot(device: Self.token))
                    #expect(snapshot.notifications.count == pushes)
                    #expect(snapshot.notifications.allSatisfy { $0.mark == .shown })
                    // Every change numbered once, the summaries among them.
                    let journal = try #require(try await first.changes(device: Self.token, after: 0))
                    #expect(journal.map(\.number) == Array(1...snapshot.lastChange))
                }
            }
        }
    }

    /// A push decided in the batch of a device without settings, racing the change that gives it a summary: each push
    /// numbered after the change is held, each numbered before is shown.
    @Test func aPushRacingASettingsChangeIsDecidedUnderTheSettingsBeforeIt() async throws {
        try await TestDatabase.withFresh { database in
            try await TestDatabase.withStore(database) { first in
                try await TestDatabase.withStore(database) { second in
                    try await first.createDevice(DeviceRecord(token: Self.token, secretHash: "h", name: "n", createdAt: Date()))
                    var inSummary = AppSettings()
                    inSummary.scheduledSummary = true
                    _ = try await first.saveApp(AppRecord(topic: Self.app, settings: inSummary), device: Self.token)
                    let settingsChange = try await withThrowingTaskGroup(of: UInt64?.self) { group in
                        for index in 0..<40 {
                            group.addTask {
                                let request = StoreConformance.request("n\(index)", level: .active)
                                _ = try await first.commit([.deliver(request, app: Self.app, at: StoreConformance.start, device: Self.token)])
                                return nil
                            }
                            if index == 20 {
                                group.addTask {
                                    try await second.updateDeviceSettings(device: Self.token) { stored in
                                        var settings = stored
                                        settings.summary.isEnabled = true
                                        return settings
                                    }?.number
                                }
                            }
                        }
                        return try await group.reduce(into: UInt64?.none) { found, number in found = found ?? number }
                    }
                    let number = try #require(settingsChange)
                    let notifications = try #require(try await first.snapshot(device: Self.token)).notifications
                    #expect(notifications.count == 40)
                    for notification in notifications {
                        #expect(notification.mark == (notification.stamp.sequence > number ? .held : .shown), "\(notification.identifier)")
                    }
                }
            }
        }
    }
}
