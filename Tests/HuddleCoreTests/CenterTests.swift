import Foundation
import HuddleCore
import Testing

/// The center's own API: replacement, removal, regrouping, category validation.
@Suite struct CenterTests {
    static let app = "com.example.app"
    static let start = Date(timeIntervalSince1970: 1_528_304_400)

    static func center() throws -> Center {
        var center = Center()
        try center.register(AppRegistration(bundleIdentifier: app))
        return center
    }

    static func request(_ id: String, thread: String = "", body: String = "hi") -> NotificationRequest {
        NotificationRequest(identifier: id, content: NotificationContent(body: .plain(body), threadIdentifier: thread))
    }

    @Test func unknownAppIsRefused() throws {
        var center = try Self.center()
        #expect(throws: CenterError.unknownAppError("com.example.nope")) {
            try center.deliver(Self.request("a"), app: "com.example.nope", at: Self.start)
        }
    }

    @Test func invisiblePushesChangeNothing() throws {
        var center = try Self.center()
        let badgeOnly = NotificationRequest(identifier: "b", content: NotificationContent(badge: 3))
        #expect(try center.deliver(badgeOnly, app: Self.app, at: Self.start) == nil)
        #expect(center.notificationCount == 0)
    }

    @Test func replacementMovesTheNotificationAndReportsIt() throws {
        var center = try Self.center()
        try center.deliver(Self.request("a", thread: "t1"), app: Self.app, at: Self.start)
        try center.deliver(Self.request("b", thread: "t1"), app: Self.app, at: Self.start.addingTimeInterval(1))
        let delivery = try #require(try center.deliver(Self.request("a", thread: "t2", body: "new"), app: Self.app, at: Self.start.addingTimeInterval(2)))
        #expect(delivery.replaced?.content.body == .plain("hi"))
        #expect(delivery.replacedGroup == GroupID(app: Self.app, kind: .thread("t1")))
        #expect(delivery.group == GroupID(app: Self.app, kind: .thread("t2")))
        #expect(center.notificationCount == 2)
        #expect(center.groupIDs.map(\.description) == ["\(Self.app)/t2", "\(Self.app)/t1"])
    }

    @Test func equalDatesAreOrderedByDelivery() throws {
        var center = try Self.center()
        for id in ["a", "b", "c"] { try center.deliver(Self.request(id, thread: id), app: Self.app, at: Self.start) }
        #expect(center.groupIDs.map { $0.thread } == ["c", "b", "a"])
    }

    @Test func anOlderDateDoesNotLead() throws {
        var center = try Self.center()
        try center.deliver(Self.request("new"), app: Self.app, at: Self.start.addingTimeInterval(10))
        try center.deliver(Self.request("old"), app: Self.app, at: Self.start)
        #expect(center.leadingNotification(of: GroupID(app: Self.app, kind: .app))?.identifier == "new")
    }

    @Test func orderSurvivesManyRemovalsAndRedeliveries() throws {
        var center = try Self.center()
        // Enough churn to make the order compact its stale entries several times.
        for round in 0..<50 {
            for thread in 0..<20 {
                try center.deliver(Self.request("\(round)-\(thread)", thread: "t\(thread)"), app: Self.app, at: Self.start.addingTimeInterval(Double(round * 20 + thread)))
            }
            try center.removeNotifications(withIdentifiers: ["\(round)-\(round % 20)"], app: Self.app)
        }
        let groups = center.groupIDs
        #expect(groups.count == 20)
        let leaders = groups.compactMap { center.leadingNotification(of: $0)?.stamp }
        #expect(leaders == leaders.sorted(by: >))
    }

    @Test func removingTheLastNotificationRemovesTheGroup() throws {
        var center = try Self.center()
        try center.deliver(Self.request("a", thread: "t"), app: Self.app, at: Self.start)
        let removals = try center.removeNotifications(withIdentifiers: ["a", "zzz"], app: Self.app)
        #expect(removals.map(\.notification.identifier) == ["a"])
        #expect(center.groupIDs.isEmpty)
    }

    @Test func categoriesAreValidatedBeforeAnythingChanges() throws {
        var center = try Self.center()
        try center.setCategories([NotificationCategory(identifier: "ok", categorySummaryFormat: .plain("%u more"))], for: Self.app)
        #expect(throws: CenterError.self) {
            try center.setCategories(
                [NotificationCategory(identifier: "ok"), NotificationCategory(identifier: "bad", categorySummaryFormat: .plain("%x"))], for: Self.app)
        }
        #expect(center.registration(for: Self.app)?.categories.keys.sorted() == ["ok"])
        #expect(throws: CenterError.self) {
            try center.setCategories([NotificationCategory(identifier: "twice"), NotificationCategory(identifier: "twice")], for: Self.app)
        }
        #expect(throws: CenterError.self) {
            try center.setCategories(
                [NotificationCategory(identifier: "args", categorySummaryFormat: .localized(key: "K", arguments: ["x"]))], for: Self.app)
        }
    }

    @Test func groupIDTextRoundTrips() {
        for id in [GroupID(app: "a.b", kind: .app), GroupID(app: "a.b", kind: .thread("x/y#z")), GroupID(app: "a.b", kind: .single("n#1"))] {
            #expect(GroupID(id.description) == id)
        }
        #expect(GroupID("") == nil)
        #expect(GroupID("a.b/") == nil)
    }

    @Test func unregisteredCategoryBehavesAsNone() throws {
        var center = try Self.center()
        for id in ["a", "b"] {
            var request = Self.request(id)
            request.content.categoryIdentifier = "never-registered"
            try center.deliver(request, app: Self.app, at: Self.start)
        }
        #expect(center.render(for: Viewer()).groups.first?.summary == "1 more notification")
    }

    @Test func numbersFollowTheViewersLocale() throws {
        var center = try Self.center()
        try center.setCategories([NotificationCategory(identifier: "c", categorySummaryFormat: .plain("%u more"))], for: Self.app)
        for index in 0..<2 {
            var request = Self.request("n\(index)")
            request.content.categoryIdentifier = "c"
            request.content.summaryArgumentCount = 1234
            try center.deliver(request, app: Self.app, at: Self.start)
        }
        #expect(center.render(for: Viewer(languages: ["en"])).groups.first?.summary == "1,234 more")
        #expect(center.render(for: Viewer(languages: ["de"])).groups.first?.summary == "1.234 more")
        #expect(center.render(for: Viewer(languages: ["ar-EG"])).groups.first?.summary == "١٬٢٣٤ more")
    }

    @Test func percentAndPositionalFormats() throws {
        var center = try Self.center()
        try center.setCategories([
            NotificationCategory(identifier: "reordered", categorySummaryFormat: .plain("%2$@: %1$lu more (100%%)"))
        ], for: Self.app)
        for (index, name) in ["Ann", "Bob", "Cy"].enumerated() {
            var request = Self.request("n\(index)")
            request.content.categoryIdentifier = "reordered"
            request.content.summaryArgument = name
            try center.deliver(request, app: Self.app, at: Self.start)
        }
        #expect(center.render(for: Viewer()).groups.first?.summary == "Bob and Ann: 2 more (100%)")
    }

    @Test func plainTextIsNeverTreatedAsAFormat() throws {
        var center = try Self.center()
        try center.deliver(Self.request("a", body: "50% off %@ %s %n"), app: Self.app, at: Self.start)
        #expect(center.render(for: Viewer()).groups.first?.notifications.first?.body == "50% off %@ %s %n")
    }
}

extension CenterError {
    static func unknownAppError(_ app: String) -> CenterError {
        CenterError(.unknownApp, "unknown app \"\(app)\": register it before delivering to it")
    }
}
