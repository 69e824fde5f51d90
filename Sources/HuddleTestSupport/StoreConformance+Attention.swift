public import Foundation
public import HuddleCore
import Testing

/// What every store does with the person's settings (issue 43): where a notification goes is decided in the
/// transaction that stores it, held notifications wait in the store, and a summary is delivered once.
extension StoreConformance {
    public static let summaryApp = "com.example.app"
    static let otherApp = "com.example.other"
    /// 08:00 UTC on the day of ``start`` (which is 17:00 UTC).
    public static let nextMorning = Date(timeIntervalSince1970: 1_528_358_400)

    public static func request(_ id: String, level: InterruptionLevel, relevance: Double? = nil) -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(
            title: .plain("Title \(id)"), body: .plain("Body"), interruptionLevel: level, relevanceScore: relevance))
    }

    /// A device with a summary at 08:00 UTC holding `summaryApp`, and `otherApp` outside it.
    public static func deviceWithSummary(_ store: any NotificationStore, focus: FocusSettings? = nil) async throws {
        try await store.createDevice(device())
        var inSummary = AppSettings()
        inSummary.scheduledSummary = true
        _ = try await store.saveApp(AppRecord(topic: summaryApp, settings: inSummary, capabilities: AppCapabilities(timeSensitive: true)), device: token)
        _ = try await store.saveApp(AppRecord(topic: otherApp), device: token)
        _ = try await store.updateDeviceSettings(device: token) { _ in
            try DeviceSettings(summary: try SummarySchedule(isEnabled: true, times: [try #require(TimeOfDay(hour: 8, minute: 0))]), focus: focus)
        }
    }

    static func marks(_ store: any NotificationStore) async throws -> [String: ArrivalMark] {
        Dictionary(uniqueKeysWithValues: try await notifications(store).map { ($0.identifier, $0.mark) })
    }

    static let attentionChecks: [String: Check] = [
        "a delivery is held, silenced or shown as the settings stored with it say, and a summary delivers it once": { store in
            try await deviceWithSummary(store, focus: try FocusSettings(name: "Work", mode: .on))
            let delivered = try await store.commit([
                .deliver(request("held", level: .active, relevance: 0.2), app: summaryApp, at: start, device: token),
                .deliver(request("passive", level: .passive, relevance: 0.9), app: summaryApp, at: start.addingTimeInterval(1), device: token),
                .deliver(request("urgent", level: .timeSensitive), app: summaryApp, at: start.addingTimeInterval(2), device: token),
                .deliver(request("quiet", level: .active), app: otherApp, at: start.addingTimeInterval(3), device: token),
            ]).map { try $0.get().first?.kind }
            let deliveredMarks = delivered.compactMap { kind -> ArrivalMark? in
                if case .delivered(let notification)? = kind { notification.mark } else { nil }
            }
            #expect(deliveredMarks == [.held, .held, .shown, .silenced(focus: "Work")])
            #expect(try await marks(store) == ["held": .held, "passive": .held, "urgent": .shown, "quiet": .silenced(focus: "Work")])
            let stored = try #require(try await store.snapshot(device: token))
            #expect(try await store.holdingDevices(knowingSettingsAsOf: [:]) == [
                HoldingDevice(token: token, oldestHeld: start, lastChange: stored.lastChange, settings: stored.settings)
            ])
            // Settings known as of the device's last change are not read again; known as of an earlier one, they are.
            #expect(try await store.holdingDevices(knowingSettingsAsOf: [token: stored.lastChange]) == [
                HoldingDevice(token: token, oldestHeld: start, lastChange: stored.lastChange, settings: nil)
            ])
            #expect(try await store.holdingDevices(knowingSettingsAsOf: [token: stored.lastChange - 1]).map(\.settings) == [stored.settings])
            // Not yet due: nothing changes.
            #expect(try await store.deliverSummaries(device: token, dueBy: nextMorning.addingTimeInterval(-1)) == [])
            let changes = try await store.deliverSummaries(device: token, dueBy: nextMorning)
            guard changes.count == 1, case .summary(let summary) = changes[0].kind else {
                Issue.record("expected one summary, got \(changes)")
                return
            }
            #expect(summary.deliveredAt == nextMorning)
            #expect(summary.apps == [ScheduledSummary.AppPart(app: summaryApp, identifiers: ["passive", "held"])])
            #expect(summary.featured.first == ScheduledSummary.Featured(app: summaryApp, identifier: "passive"))
            // Delivered once: nothing is held, and a second delivery finds nothing.
            #expect(try await store.deliverSummaries(device: token, dueBy: nextMorning) == [])
            #expect(try await store.holdingDevices(knowingSettingsAsOf: [:]) == [])
            let snapshot = try #require(try await store.snapshot(device: token))
            #expect(snapshot.summary == summary)
            #expect(snapshot.notifications.filter { $0.mark == .held }.isEmpty)
            #expect(try await store.changes(device: token, after: snapshot.lastChange - 1)?.map(\.kind) == [.summary(summary)])
        },
        "the next summary is delivered on request before its time, and a replaced held notification is shown": { store in
            try await deviceWithSummary(store)
            _ = try await store.deliver(request("a", level: .active), app: summaryApp, at: start, device: token)
            _ = try await store.deliver(request("b", level: .active), app: summaryApp, at: start, device: token)
            // Replaced by a Time Sensitive one: it breaks through, and is held no more.
            _ = try await store.deliver(request("b", level: .timeSensitive), app: summaryApp, at: start, device: token)
            #expect(try await marks(store) == ["a": .held, "b": .shown])
            let changes = try await store.deliverSummaries(device: token, dueBy: nil)
            guard case .summary(let summary)? = changes.first?.kind else {
                Issue.record("expected a summary, got \(changes)")
                return
            }
            #expect(summary.count == 1)
            #expect(summary.deliveredAt == nextMorning)
            #expect(try await marks(store) == ["a": .shown, "b": .shown])
        },
        "turning the summary off, or taking an app out of it, hands its held notifications over in the same change": { store in
            try await deviceWithSummary(store)
            var inSummary = AppSettings()
            inSummary.scheduledSummary = true
            _ = try await store.saveApp(AppRecord(topic: otherApp, settings: inSummary), device: token)
            _ = try await store.deliver(request("mine", level: .active), app: summaryApp, at: start, device: token)
            _ = try await store.deliver(request("theirs", level: .active), app: otherApp, at: start, device: token)
            #expect(try await marks(store) == ["mine": .held, "theirs": .held])
            // The other app leaves the summary: its notification is shown; ours waits.
            _ = try await store.saveApp(AppRecord(topic: otherApp), device: token)
            #expect(try await marks(store) == ["mine": .held, "theirs": .shown])
            // The summary goes off: everything is shown.
            _ = try await store.updateDeviceSettings(device: token) { stored in
                var settings = stored
                settings.summary.isEnabled = false
                return settings
            }
            #expect(try await marks(store) == ["mine": .shown, "theirs": .shown])
            #expect(try await store.holdingDevices(knowingSettingsAsOf: [:]) == [])
        },
        "an app's capabilities are stored with it": { store in
            try await store.createDevice(device())
            let app = AppRecord(topic: summaryApp, capabilities: AppCapabilities(timeSensitive: true, criticalAlerts: true))
            _ = try await store.saveApp(app, device: token)
            #expect(try await store.apps(device: token).map(\.tokenless) == [app])
            _ = try await store.saveApp(AppRecord(topic: summaryApp), device: token)
            #expect(try await store.apps(device: token).first?.capabilities == AppCapabilities())
        },
        "pushes racing a summary's delivery are each held once or delivered once, never lost": { store in
            try await deviceWithSummary(store)
            let count = 40
            let summaries = try await withThrowingTaskGroup(of: [DeviceChange].self) { group in
                for index in 0..<count {
                    group.addTask {
                        _ = try await store.commit([
                            .deliver(request("n\(index)", level: .active), app: summaryApp, at: start.addingTimeInterval(Double(index)), device: token)
                        ])
                        return []
                    }
                    if index % 8 == 0 {
                        group.addTask { try await store.deliverSummaries(device: token, dueBy: nextMorning) }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let summarized = summaries.flatMap { change -> [String] in
                if case .summary(let summary) = change.kind { summary.notifications.map(\.identifier) } else { [] }
            }
            let stillHeld = try await notifications(store).filter { $0.mark == .held }.map(\.identifier)
            // Each notification is in exactly one summary, or still held; none in two, none lost.
            #expect(summarized.count == Set(summarized).count)
            #expect(Set(summarized).union(stillHeld) == Set((0..<count).map { "n\($0)" }))
            #expect(Set(summarized).isDisjoint(with: stillHeld))
            #expect(try await notifications(store).count == count)
        },
    ]
}
