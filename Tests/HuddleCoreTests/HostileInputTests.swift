import Foundation
import HuddleCore
import HuddleLocalization
import Testing

/// Numbers, sizes and stored records from strangers: none may crash the engine or poison a device.
@Suite struct HostileInputTests {
    static let app = "com.example.app"
    static let start = Date(timeIntervalSince1970: 1_528_304_400)

    static func request(_ id: String, count: Int, argument: String = "Teja") -> NotificationRequest {
        NotificationRequest(
            identifier: id,
            content: NotificationContent(
                body: .plain("hi"), categoryIdentifier: "msg", threadIdentifier: "t", summaryArgument: argument,
                summaryArgumentCount: count))
    }

    static func center(format: String = "%u more messages from %@") throws -> Center {
        var center = Center()
        try center.register(AppRegistration(bundleIdentifier: app))
        try center.setCategories([NotificationCategory(identifier: "msg", categorySummaryFormat: .plain(format))], for: app)
        return center
    }

    @Test func hugeSummaryCountsAreCappedNotOverflowed() throws {
        var center = try Self.center()
        for index in 0..<4 {
            try center.deliver(Self.request("n\(index)", count: .max), app: Self.app, at: Self.start.addingTimeInterval(Double(index)))
        }
        let group = try #require(center.render(for: Viewer()).groups.first)
        #expect(group.summary == "3,000,000 more messages from Teja")
        // Removing them brings the totals back exactly.
        _ = try center.removeNotifications(withIdentifiers: ["n0", "n1", "n2"], app: Self.app)
        try center.deliver(Self.request("n9", count: 2), app: Self.app, at: Self.start.addingTimeInterval(9))
        #expect(center.render(for: Viewer()).groups.first?.summary == "1,000,000 more messages from Teja")
    }

    @Test func negativeAndZeroCountsCountAsOne() throws {
        var center = try Self.center()
        try center.deliver(Self.request("a", count: .min), app: Self.app, at: Self.start)
        try center.deliver(Self.request("b", count: 0), app: Self.app, at: Self.start.addingTimeInterval(1))
        try center.deliver(Self.request("c", count: -5), app: Self.app, at: Self.start.addingTimeInterval(2))
        #expect(center.render(for: Viewer()).groups.first?.summary == "2 more messages from Teja")
    }

    @Test func aPositionPastTheCapInALocalizedBodyIsShownUnformatted() throws {
        var center = try Self.center()
        let content = NotificationContent(body: .localized(key: "%9223372036854775807$@", arguments: ["x"]))
        try center.deliver(NotificationRequest(identifier: "a", content: content), app: Self.app, at: Self.start)
        let rendered = center.render(for: Viewer())
        #expect(rendered.groups.first?.notifications.first?.body == "%9223372036854775807$@")
        #expect(!rendered.diagnostics.isEmpty)
    }

    @Test func aCategoryFormatWithAnImpossiblePositionIsRefused() {
        #expect(throws: CenterError.self) { try Self.center(format: "%9223372036854775807$u more") }
    }

    @Test func aBadgeBeyondThirtyTwoBitsIsRefused() throws {
        let json = try JSONParser.parse(#"{"body": "hi", "badge": 4294967296}"#)
        #expect(throws: JSONReadError(path: "badge", message: "must be from 0 to 2147483647, found 4294967296")) {
            try NotificationContent(json: JSONReader(json))
        }
    }

    @Test func aStringsdictThatWouldBlowUpIsRefusedWhenTheAppRegisters() {
        var variables: [String: PluralVariable] = [:]
        for level in 0..<8 {
            variables["v\(level)"] = PluralVariable(valueType: "u", forms: [.other: String(repeating: "%#@v\(level + 1)@", count: 8)])
        }
        let bundle = LocalizationBundle(
            developmentLanguage: "en", tables: ["en": ["BOOM": .plural(PluralFormat(format: "%#@v0@", variables: variables))]])
        var center = Center()
        do {
            try center.register(AppRegistration(bundleIdentifier: Self.app, localizations: bundle))
            Issue.record("registered a catalog that expands exponentially")
        } catch {
            #expect(error.code == .invalidLocalization)
            #expect(error.description.hasPrefix("app \"com.example.app\": en string \"BOOM\": "))
        }
    }

    @Test func aViewerKeepsItsFirstSixteenLanguages() {
        let many = (0..<1_000).map { "x\($0)" }
        #expect(Viewer(languages: many).languages == Array(many.prefix(Viewer.maximumLanguages)))
        #expect(Viewer(languages: []).languages == ["en"])
    }

    // MARK: Stored records

    static func snapshot(apps: [AppRecord], notifications: [DeliveredNotification]) -> DeviceSnapshot {
        DeviceSnapshot(
            device: DeviceRecord(token: "t", secretHash: "h", name: "n", createdAt: start), apps: apps,
            notifications: notifications, lastChange: 7)
    }

    static func stored(_ id: String, app: String, sequence: UInt64) -> DeliveredNotification {
        DeliveredNotification(
            app: app, request: NotificationRequest(identifier: id, content: NotificationContent(body: .plain(id))),
            stamp: DeliveryStamp(date: start.addingTimeInterval(Double(sequence)), sequence: sequence))
    }

    @Test func aStoredAppThatTodaysRulesRefuseIsLeftOutNotFatal() {
        // Written before positions were bounded: such a record must not make the device unreadable.
        let poisoned = AppRecord(
            topic: "com.example.old",
            categories: [NotificationCategory(identifier: "msg", categorySummaryFormat: .plain("%9223372036854775807$u more"))])
        let healthy = AppRecord(topic: Self.app)
        let snapshot = Self.snapshot(
            apps: [poisoned, healthy],
            notifications: [Self.stored("a", app: "com.example.old", sequence: 1), Self.stored("b", app: Self.app, sequence: 2)])
        let (center, refused) = Center.loading(snapshot)
        #expect(center.registeredApps == [Self.app])
        #expect(center.render(for: Viewer()).groups.map(\.app) == [Self.app])
        #expect(refused.count == 2)
        #expect(refused.first?.hasPrefix("app com.example.old is left out: ") == true)
        #expect(refused.last == "1 notifications of app com.example.old are left out with it")
    }

    @Test func aStoredCatalogThatCannotBeReadIsLeftOut() {
        let broken = AppRecord(topic: "com.example.broken", localizationFiles: ["en.lproj/Localizable.strings": Data("\"a\" = ".utf8)])
        let (center, refused) = Center.loading(Self.snapshot(apps: [broken, AppRecord(topic: Self.app)], notifications: []))
        #expect(center.registeredApps == [Self.app])
        #expect(refused.count == 1)
    }

    // MARK: JSON

    static func object(keys: Int) -> String {
        "{" + (0..<keys).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + "}"
    }

    static func parseError(_ text: String) -> String? {
        do {
            _ = try JSONParser.parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func objectsUpToTheMemberLimitParse() throws {
        let value = try JSONParser.parse(Self.object(keys: JSONParser.maximumObjectMembers))
        #expect(value["k9999"] == .integer(9999))
    }

    @Test func anObjectPastTheMemberLimitIsRefusedWithItsPlace() {
        let text = Self.object(keys: JSONParser.maximumObjectMembers + 1)
        let column = text.count - "\"k10000\": 10000}".count + 1
        #expect(Self.parseError(text) == "line 1, column \(column): an object has more than 10000 members")
    }

    @Test func aDuplicateKeyIsStillNamedWhereItStands() {
        #expect(Self.parseError("{\n  \"a\": 1,\n  \"a\": 2\n}") == "line 3, column 3: duplicate key \"a\" in one object")
    }

    @Test func nestingPastTheDepthLimitIsRefused() {
        let text = String(repeating: "[", count: JSONParser.maximumDepth + 1) + String(repeating: "]", count: JSONParser.maximumDepth + 1)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(text) }
        let deepest = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONParser.parse(deepest) }
    }
}
