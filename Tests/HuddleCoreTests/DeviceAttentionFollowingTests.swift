import Foundation
import HuddleCore
import HuddleTestSupport
import Testing

/// A server follows a device's stored changes with ``DeviceAttention/apply(_:to:)``: wherever it stops, what it shows
/// is what a server loading the device's snapshot then would show (held notifications apart, silenced ones marked,
/// the latest summary, released ones in their groups).
@Suite struct DeviceAttentionFollowingTests {
    static let token = StoreConformance.token
    static let app = StoreConformance.summaryApp
    static let other = "com.example.other"

    /// The device as a snapshot loads it, and as following every change since `start` leaves it, rendered alike.
    struct Follower {
        var center: Center
        var attention: DeviceAttention
        var applied: UInt64

        init(_ snapshot: DeviceSnapshot) {
            center = Center.loading(snapshot).center
            attention = DeviceAttention(snapshot: snapshot)
            applied = snapshot.lastChange
        }

        mutating func follow(_ store: any NotificationStore) async throws {
            for change in try #require(try await store.changes(device: DeviceAttentionFollowingTests.token, after: applied)) {
                _ = attention.apply(change, to: &center)
                applied = change.number
            }
        }

        func rendered(locked: Bool = false) -> String {
            let viewer = Viewer(languages: ["en"], locked: locked)
            return attention.decorate(center.render(for: viewer), for: viewer, at: StoreConformance.nextMorning).json.jsonText()
        }
    }

    static func expectSame(_ follower: Follower, _ store: any NotificationStore, _ step: String) async throws {
        let loaded = Follower(try #require(try await store.snapshot(device: token)))
        #expect(follower.rendered() == loaded.rendered(), "after \(step)")
        #expect(follower.rendered(locked: true) == loaded.rendered(locked: true), "after \(step), locked")
        #expect(follower.attention.held.map(\.request.identifier) == loaded.attention.held.map(\.request.identifier), "held after \(step)")
    }

    @Test func followingEveryChangeShowsWhatTheSnapshotShows() async throws {
        let store: any NotificationStore = InMemoryNotificationStore()
        try await StoreConformance.deviceWithSummary(store, focus: try FocusSettings(name: "Work", mode: .on))
        var follower = Follower(try #require(try await store.snapshot(device: Self.token)))
        let start = StoreConformance.start
        func deliver(_ id: String, _ level: InterruptionLevel, app: String = Self.app, at seconds: Double, relevance: Double? = nil) async throws {
            _ = try await store.deliver(StoreConformance.request(id, level: level, relevance: relevance), app: app, at: start.addingTimeInterval(seconds), device: Self.token)
        }
        try await deliver("a", .active, at: 1, relevance: 0.5)
        try await deliver("b", .passive, at: 2, relevance: 0.7)
        try await deliver("c", .timeSensitive, at: 3)
        try await deliver("m", .active, app: Self.other, at: 4)
        try await follower.follow(store)
        try await Self.expectSame(follower, store, "held, shown and silenced deliveries")
        #expect(follower.attention.held.map(\.request.identifier) == ["a", "b"])
        #expect(follower.attention.silencingFocus(app: Self.other, identifier: "m") == "Work")

        // A held one replaced by a shown one, another removed while held.
        try await deliver("a", .timeSensitive, at: 5)
        _ = try await store.deleteNotifications(app: Self.app, identifiers: ["b"], device: Self.token)
        try await deliver("d", .active, at: 6)
        try await follower.follow(store)
        try await Self.expectSame(follower, store, "a replacement and a removal")
        #expect(follower.attention.held.map(\.request.identifier) == ["d"])

        // The summary moves to the evening: still held; then it comes, once.
        _ = try await store.updateDeviceSettings(device: Self.token) { stored in
            var settings = stored
            settings.summary = try SummarySchedule(isEnabled: true, times: [try #require(TimeOfDay(hour: 18, minute: 0))])
            return settings
        }
        try await deliver("e", .passive, at: 7)
        try await follower.follow(store)
        try await Self.expectSame(follower, store, "new summary times")
        _ = try await store.deliverSummaries(device: Self.token, dueBy: StoreConformance.nextMorning)
        try await follower.follow(store)
        try await Self.expectSame(follower, store, "the summary")
        #expect(follower.attention.held.isEmpty)
        #expect(follower.attention.summaries.last?.count == 2)

        // Held again, then the app leaves the summary: what it held is shown in the same change.
        try await deliver("f", .active, at: 8)
        _ = try await store.saveApp(AppRecord(topic: Self.app), device: Self.token)
        try await follower.follow(store)
        try await Self.expectSame(follower, store, "the app leaving the summary")
        #expect(follower.attention.held.isEmpty)
        #expect(follower.center.deliveredNotifications(app: Self.app).map(\.identifier).sorted() == ["a", "c", "d", "e", "f"])
    }
}
