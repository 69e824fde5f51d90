import Foundation
import HuddleCore
import HuddleLocalization
import Testing

/// The center keeps running totals per group; these tests recompute every summary from scratch after
/// each step of random histories and require the two to agree.
@Suite struct IncrementalStateTests {
    static let apps = ["com.example.a", "com.example.b"]
    static let categories = [
        NotificationCategory(identifier: "plain", hiddenPreviewsBodyPlaceholder: .plain("%u plain"), categorySummaryFormat: .plain("%u more plain")),
        NotificationCategory(identifier: "withArgument", hiddenPreviewsBodyPlaceholder: .plain("%u argued"), categorySummaryFormat: .plain("%u more from %@")),
        NotificationCategory(identifier: "photos", categorySummaryFormat: .plain("%u more photos")),
        NotificationCategory(identifier: "bare"),
    ]

    /// A small deterministic generator, so a failure replays.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: 1...12)
    func summariesMatchARecomputation(seed: Int) throws {
        var random = SplitMix(state: UInt64(seed))
        var center = Center()
        for app in Self.apps {
            try center.register(AppRegistration(bundleIdentifier: app))
            try center.setCategories(Self.categories, for: app)
        }
        var clock = Date(timeIntervalSince1970: 1_528_304_400)
        for step in 0..<400 {
            let app = Self.apps.randomElement(using: &random)!
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<70:
                var content = NotificationContent(body: .plain("step \(step)"))
                content.threadIdentifier = ["", "t1", "t2"].randomElement(using: &random)!
                content.categoryIdentifier = ["plain", "withArgument", "photos", "bare", "unregistered", ""].randomElement(using: &random)!
                content.summaryArgument = ["", "Ann", "Bob", "Cy", "Dee"].randomElement(using: &random)!
                content.summaryArgumentCount = Int.random(in: -1...3, using: &random)
                // Equal dates happen: the sequence number breaks the tie.
                if Bool.random(using: &random) { clock.addTimeInterval(1) }
                try center.deliver(NotificationRequest(identifier: "n\(Int.random(in: 0..<40, using: &random))", content: content), app: app, at: clock)
            case 70..<85:
                let identifiers = (0..<3).map { _ in "n\(Int.random(in: 0..<40, using: &random))" }
                try center.removeNotifications(withIdentifiers: identifiers, app: app)
            case 85..<92:
                if let group = center.groupIDs.filter({ $0.app == app }).randomElement(using: &random) {
                    try center.removeGroup(group)
                }
            case 92..<97:
                var settings = center.registration(for: app)!.settings
                settings.grouping = Grouping.allCases.randomElement(using: &random)!
                try center.setSettings(settings, for: app)
            default:
                try center.removeAllNotifications(app: app)
            }
            try Self.check(center, step: step, seed: seed)
        }
    }

    static func check(_ center: Center, step: Int, seed: Int) throws {
        for locked in [false, true] {
            let viewer = Viewer(languages: ["en"], locked: locked)
            let rendered = center.render(for: viewer)
            let all = apps.flatMap { center.deliveredNotifications(app: $0) }
            let expectedGroups = Reference.groups(all, center: center)
            #expect(rendered.groups.map(\.id) == expectedGroups.map(\.id.description), "seed \(seed) step \(step): group order")
            for (group, expected) in zip(rendered.groups, expectedGroups) {
                #expect(group.notifications.map(\.id) == expected.members.map(\.identifier), "seed \(seed) step \(step): \(group.id) members")
                let registration = center.registration(for: group.app)!
                if locked {
                    let text = Reference.hiddenText(expected.members, registration: registration)
                    #expect(group.hiddenPreviewsText == text, "seed \(seed) step \(step): \(group.id) hidden text")
                } else {
                    let summary = Reference.summary(expected.members, registration: registration)
                    #expect(group.summary == summary, "seed \(seed) step \(step): \(group.id) summary")
                }
            }
        }
    }

    /// The rules of behavior.md sections 2 to 5, computed directly from the notifications.
    enum Reference {
        static func groups(_ notifications: [DeliveredNotification], center: Center) -> [(id: GroupID, members: [DeliveredNotification])] {
            var byGroup: [GroupID: [DeliveredNotification]] = [:]
            for notification in notifications {
                let grouping = center.registration(for: notification.app)!.settings.grouping
                let kind: GroupID.Kind
                switch grouping {
                case .automatic: kind = notification.content.threadIdentifier.isEmpty ? .app : .thread(notification.content.threadIdentifier)
                case .byApp: kind = .app
                case .off: kind = .single(notification.identifier)
                }
                byGroup[GroupID(app: notification.app, kind: kind), default: []].append(notification)
            }
            return byGroup.map { ($0.key, $0.value.sorted { $0.stamp > $1.stamp }) }
                .sorted { $0.members[0].stamp > $1.members[0].stamp }
        }

        static func list(_ items: [String]) -> String {
            LocaleFormatting(identifier: "en").list(items)
        }

        static func plural(_ count: Int, _ one: String, _ other: String) -> String {
            count == 1 ? one : other
        }

        static func summary(_ members: [DeliveredNotification], registration: AppRegistration) -> String? {
            guard members.count > 1 else { return nil }
            let rest = Array(members.dropFirst())
            // Format text per notification; nil stands for the default.
            func format(_ notification: DeliveredNotification) -> String? {
                if case .plain(let text)? = registration.categories[notification.content.categoryIdentifier]?.categorySummaryFormat, !text.isEmpty {
                    return text
                }
                return nil
            }
            var order: [String?] = []
            var counts: [String?: Int] = [:]
            var arguments: [String?: [String]] = [:]
            for notification in rest {
                let key = format(notification)
                if !order.contains(where: { $0 == key }) { order.append(key) }
                counts[key, default: 0] += max(notification.content.summaryArgumentCount, 1)
                let argument = notification.content.summaryArgument
                if !argument.isEmpty, !(arguments[key] ?? []).contains(argument) { arguments[key, default: []].append(argument) }
            }
            let total = counts.values.reduce(0, +)
            func defaultText(_ count: Int, _ arguments: [String]) -> String {
                arguments.isEmpty
                    ? plural(count, "\(count) more notification", "\(count) more notifications")
                    : plural(count, "\(count) more notification from \(list(arguments))", "\(count) more notifications from \(list(arguments))")
            }
            func takesArgument(_ key: String?) -> Bool {
                key.map { $0.contains("%@") } ?? !(arguments[key] ?? []).isEmpty
            }
            if order.count == 1 {
                let key = order[0]
                let args = arguments[key] ?? []
                guard let key else { return defaultText(total, args) }
                if key.contains("%@") {
                    return args.isEmpty ? defaultText(total, []) : key.replacingOccurrences(of: "%u", with: "\(total)").replacingOccurrences(of: "%@", with: list(args))
                }
                return key.replacingOccurrences(of: "%u", with: "\(total)")
            }
            if order.contains(where: takesArgument) { return defaultText(total, []) }
            return list(order.map { key in
                key.map { $0.replacingOccurrences(of: "%u", with: "\(counts[key]!)") } ?? defaultText(counts[key]!, [])
            })
        }

        static func hiddenText(_ members: [DeliveredNotification], registration: AppRegistration) -> String {
            var order: [String?] = []
            var counts: [String?: Int] = [:]
            for notification in members {
                var key: String?
                if case .plain(let text)? = registration.categories[notification.content.categoryIdentifier]?.hiddenPreviewsBodyPlaceholder, !text.isEmpty {
                    key = text
                }
                if !order.contains(where: { $0 == key }) { order.append(key) }
                counts[key, default: 0] += 1
            }
            return list(order.map { key in
                let count = counts[key]!
                return key.map { $0.replacingOccurrences(of: "%u", with: "\(count)") } ?? (count == 1 ? "Notification" : "\(count) Notifications")
            })
        }
    }
}
