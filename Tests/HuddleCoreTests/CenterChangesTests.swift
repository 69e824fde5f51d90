import Foundation
import HuddleCore
import Testing

/// Applying a device's committed changes to its center, as every server does, and what each change
/// reports to watchers.
@Suite struct CenterChangesTests {
    static let app = CenterTests.app

    /// A center that has applied the given changes, numbered from 1.
    struct Device {
        var center = Center()
        var number: UInt64 = 0

        init(app: AppRecord = AppRecord(topic: CenterChangesTests.app)) {
            let update = apply(.appSaved(app))
            precondition(update.refusal == nil)
        }

        @discardableResult
        mutating func apply(_ kind: DeviceChange.Kind) -> CenterUpdate {
            number += 1
            return center.apply(DeviceChange(number: number, kind: kind))
        }

        /// Delivers a notification stamped with the next change number, as a store stamps it.
        @discardableResult
        mutating func deliver(_ id: String, thread: String = "", app: String = CenterChangesTests.app) -> CenterUpdate {
            let stamp = DeliveryStamp(date: CenterTests.start.addingTimeInterval(Double(number + 1)), sequence: number + 1)
            return apply(.delivered(DeliveredNotification(app: app, request: CenterTests.request(id, thread: thread), stamp: stamp)))
        }
    }

    /// A watcher's log of events: "delivered a", "removed b".
    static func heard(_ update: CenterUpdate, in group: GroupID) -> [String] {
        update.groupEvents.filter { $0.group == group }.map { _, event in
            switch event {
            case .leading(let notification): "leading \(notification.identifier)"
            case .delivered(let notification): "delivered \(notification.identifier)"
            case .removed(let notification): "removed \(notification.identifier)"
            }
        }
    }

    static let thread = GroupID(app: app, kind: .thread("t"))
    static let elsewhere = GroupID(app: app, kind: .thread("elsewhere"))
    static let appGroup = GroupID(app: app, kind: .app)

    @Test func aDeliveryReportsItsGroupAndWhatItReplaced() {
        var device = Device()
        let first = device.deliver("a", thread: "t")
        #expect(first.number == 2)
        #expect(first.groups == [Self.thread])
        #expect(first.delivered == ["a"])
        #expect(Self.heard(first, in: Self.thread) == ["delivered a"])
        #expect(!first.changesEverything)

        // The same identifier in another thread: it leaves its group and joins the other.
        let replacement = device.deliver("a", thread: "elsewhere")
        #expect(replacement.groups == [Self.thread, Self.elsewhere])
        #expect(Self.heard(replacement, in: Self.thread) == ["removed a"])
        #expect(Self.heard(replacement, in: Self.elsewhere) == ["delivered a"])
        #expect(device.center.groupIDs == [Self.elsewhere])
    }

    @Test func removalsReportEachNotificationAndGroup() {
        var device = Device()
        device.deliver("a", thread: "t")
        device.deliver("b", thread: "t")
        device.deliver("c")
        let update = device.apply(.removed(app: Self.app, identifiers: ["a", "c", "unknown"]))
        #expect(update.removed == ["a", "c"])
        #expect(update.groups == [Self.thread, Self.appGroup])
        #expect(Self.heard(update, in: Self.thread) == ["removed a"])
        #expect(device.center.notifications(in: Self.thread).map(\.identifier) == ["b"])
    }

    @Test func changingGroupingMovesNotificationsAndTellsBothGroups() {
        var device = Device()
        device.deliver("a", thread: "t")
        device.deliver("b")
        let update = device.apply(.appSaved(AppRecord(topic: Self.app, settings: AppSettings(grouping: .byApp))))
        #expect(update.changesEverything)
        #expect(Self.heard(update, in: Self.thread) == ["removed a"])
        #expect(Self.heard(update, in: Self.appGroup) == ["delivered a"])
        #expect(device.center.groupIDs == [Self.appGroup])
    }

    @Test func savingAnAppWithoutRegroupingTellsNoGroup() {
        var device = Device()
        device.deliver("a", thread: "t")
        let update = device.apply(.appSaved(AppRecord(topic: Self.app, displayName: "Chat")))
        #expect(update.changesEverything)
        #expect(update.groupEvents.isEmpty)
        #expect(device.center.registration(for: Self.app)?.visibleName == "Chat")
    }

    @Test func aStoredAppRefusedTodayIsLeftOutWithItsNotifications() {
        var device = Device()
        device.deliver("a", thread: "t")
        let refused = NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%s more"))
        let update = device.apply(.appSaved(AppRecord(topic: Self.app, categories: [refused])))
        #expect(update.refusal?.contains("app \(Self.app) is left out") == true)
        #expect(update.removed == ["a"])
        #expect(Self.heard(update, in: Self.thread) == ["removed a"])
        #expect(device.center.registration(for: Self.app) == nil)
    }

    @Test func deletingAnAppRemovesEverythingItHad() {
        var device = Device()
        device.deliver("a", thread: "t")
        device.deliver("b")
        let update = device.apply(.appDeleted(topic: Self.app))
        #expect(Set(update.removed) == ["a", "b"])
        #expect(update.groups == [Self.thread, Self.appGroup])
        #expect(device.center.groupIDs.isEmpty)
    }

    @Test func supersededChangesAndDeliveriesToGoneAppsChangeNothing() {
        var device = Device()
        let superseded = device.apply(.superseded)
        #expect(superseded.groups.isEmpty && superseded.groupEvents.isEmpty && !superseded.changesEverything)
        let orphan = device.deliver("a", app: "com.example.gone")
        #expect(orphan.groups.isEmpty)
        #expect(device.center.notificationCount == 0)
    }

    @Test func replacingACenterTellsWatchedGroupsWhatLeftAndArrived() {
        var old = Device()
        old.deliver("a", thread: "t")
        old.deliver("b", thread: "t")
        var new = old
        new.apply(.removed(app: Self.app, identifiers: ["a"]))
        new.deliver("c", thread: "t")
        new.deliver("d", thread: "elsewhere")
        let events = Center.groupEvents(from: old.center, to: new.center, in: [Self.thread])
        let heard = events.map { group, event -> String in
            guard case .delivered(let notification) = event else {
                if case .removed(let notification) = event { return "\(group) removed \(notification.identifier)" }
                return "?"
            }
            return "\(group) delivered \(notification.identifier)"
        }
        #expect(heard == ["\(Self.thread) removed a", "\(Self.thread) delivered c"])
    }
}
