import Foundation
import HuddleAPNs
import HuddleCore
import HuddleTestSupport
import Testing

/// Identifiers and arguments are compared by their Unicode scalars (behavior.md section 7): "Café" with a
/// precomposed é and with e + a combining accent are two values.
@Suite struct ExactComparisonTests {
    static let precomposed = "Caf\u{E9}"
    static let decomposed = "Cafe\u{301}"

    static func center() throws -> Center {
        var center = Center()
        try center.register(AppRegistration(bundleIdentifier: "com.example.chat"))
        return center
    }

    static func request(_ id: String, thread: String = "", argument: String = "") -> NotificationRequest {
        var content = NotificationContent(body: .plain("hi"))
        content.threadIdentifier = thread
        content.summaryArgument = argument
        return NotificationRequest(identifier: id, content: content)
    }

    @Test func theSpellingsAreCanonicallyEqualInSwift() {
        // The premise: Swift's == merges them, which is what the center must not do.
        #expect(Self.precomposed == Self.decomposed)
        #expect(Self.precomposed.unicodeScalars.count != Self.decomposed.unicodeScalars.count)
    }

    @Test func twoSpellingsOfAThreadAreTwoGroups() throws {
        var center = try Self.center()
        try center.deliver(Self.request("a", thread: Self.precomposed), app: "com.example.chat", at: Scenario.startDate)
        try center.deliver(Self.request("b", thread: Self.decomposed), app: "com.example.chat", at: Scenario.startDate + 1)
        let groups = center.render(for: Viewer()).groups
        #expect(groups.count == 2)
        #expect(groups.map { $0.thread.map { Array($0.unicodeScalars) } } == [Array(Self.decomposed.unicodeScalars), Array(Self.precomposed.unicodeScalars)])
        let removed = try center.removeGroup(GroupID(app: "com.example.chat", kind: .thread(Self.decomposed)))
        #expect(removed.map(\.notification.identifier) == ["b"])
        #expect(center.notificationCount == 1)
    }

    @Test func twoSpellingsOfAnArgumentAreBothNamed() throws {
        var center = try Self.center()
        for (index, argument) in [Self.precomposed, Self.decomposed, "Teja"].enumerated() {
            try center.deliver(
                Self.request("m\(index)", thread: "t", argument: argument), app: "com.example.chat",
                at: Scenario.startDate + Double(index))
        }
        let summary = try #require(center.render(for: Viewer()).groups.first?.summary)
        // The rest is m1 and m0: both spellings appear, newest first.
        #expect(summary.unicodeScalars.elementsEqual("2 more notifications from \(Self.decomposed) and \(Self.precomposed)".unicodeScalars))
    }

    @Test func twoSpellingsOfAnIdentifierAreTwoNotifications() throws {
        var center = try Self.center()
        try center.deliver(Self.request(Self.precomposed), app: "com.example.chat", at: Scenario.startDate)
        try center.deliver(Self.request(Self.decomposed), app: "com.example.chat", at: Scenario.startDate + 1)
        #expect(center.notificationCount == 2)
        let removed = try center.removeNotifications(withIdentifiers: [Self.precomposed], app: "com.example.chat")
        #expect(removed.count == 1)
        #expect(center.notification(Self.decomposed, app: "com.example.chat") != nil)
        #expect(center.notification(Self.precomposed, app: "com.example.chat") == nil)
    }

    @Test func theInMemoryStoreKeepsBothIdentifiers() async throws {
        let store = InMemoryNotificationStore()
        try await store.createDevice(DeviceRecord(token: "device", secretHash: "x", name: "phone", createdAt: Scenario.startDate))
        _ = try await store.saveApp(AppRecord(topic: "com.example.chat"), device: "device")
        _ = try await store.deliver(Self.request(Self.precomposed), app: "com.example.chat", at: Scenario.startDate, device: "device")
        _ = try await store.deliver(Self.request(Self.decomposed), app: "com.example.chat", at: Scenario.startDate, device: "device")
        #expect(await store.snapshot(device: "device")?.notifications.count == 2)
    }
}

/// The text view, the file name in refusals, plain payloads and app descriptions beside push files.
@Suite struct PreviewFixesTests {
    static let scenarios = Fixtures.directory().appendingPathComponent("Scenarios")

    @Test func aLockedTextViewKeepsTheSubtitleThatItsCategoryShows() throws {
        let url = Self.scenarios.appendingPathComponent("hidden-previews-options.json")
        let center = try Scenario.load(contentsOf: url).play(relativeTo: url).center
        let text = center.render(for: Viewer(languages: ["en"], locked: true)).text()
        // "subtitled" keeps its subtitle while the title is hidden; "titled" keeps only the title.
        #expect(text.contains("│ Dinner"))
        #expect(!text.contains("Teja"))
        #expect(text.contains("│ Michele"))
        #expect(!text.contains("Lunch"))
        #expect(!text.contains("Breakfast"))
        #expect(!text.contains("secret"))
    }

    @Test func aRefusedCategoryFormatNamesTheFile() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.write(
            "refused.json",
            #"{"apps": {"a.b": {}}, "events": [{"setCategories": {"app": "a.b", "categories": [{"identifier": "x", "categorySummaryFormat": "%s"}]}}]}"#)
        let scenario = try Scenario.load(contentsOf: url)
        #expect(throws: ScenarioError.self) { try scenario.play(relativeTo: url) }
        do {
            _ = try scenario.play(relativeTo: url)
        } catch {
            #expect(error.description.hasPrefix(#"refused.json: event 0 (setCategories): app "a.b": category "x": categorySummaryFormat "%s""#))
        }
    }

    @Test func aPlainPayloadIsRecognisedAndTheMessageSaysWhatToAdd() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.write("push.json", #"{"aps": {"alert": "hi"}}"#)
        do {
            _ = try Scenario.load(contentsOf: url)
            Issue.record("a payload loaded as a scenario")
        } catch {
            #expect(error.code == .apnsPayload)
            #expect(error.description.hasPrefix(#"push.json: this is an APNs payload ("aps" at the top), not a scenario"#))
            #expect(error.description.contains("--app BUNDLE"))
        }
        do {
            _ = try Scenario.loadSimulatorPushes([url], app: nil)
            Issue.record("a push without an app was accepted")
        } catch {
            #expect(error.description.contains("no app: say which app the push is for with --app BUNDLE"))
        }
    }

    @Test func anAppDescriptionBesidePushFilesGivesTheirCategoriesAndLocalizations() throws {
        let directory = try TemporaryDirectory()
        try directory.write("Localizations/en.lproj/Localizable.strings", #""MORE" = "%u more messages from %@";"#)
        try directory.write("Localizations/de.lproj/Localizable.strings", #""MORE" = "%u weitere Nachrichten von %@";"#)
        let appFile = try directory.write(
            "app.json",
            #"{"apps": {"com.example.chat": {"localizations": "Localizations", "categories": [{"identifier": "msg", "categorySummaryFormat": {"key": "MORE"}}]}}, "viewer": {"languages": ["de"]}}"#)
        var pushes: [URL] = []
        for name in ["Teja", "Michele", "Kritarth"] {
            pushes.append(try directory.write(
                "push-\(name).apns",
                #"{"aps": {"alert": {"title": "\#(name)", "body": "hi", "summary-arg": "\#(name)"}, "thread-id": "team", "category": "msg"}}"#))
        }
        let scenario = try Scenario.loadSimulatorPushes(pushes, app: nil, appFile: appFile)
        #expect(scenario.apps.map(\.bundleIdentifier) == ["com.example.chat"])
        #expect(scenario.viewer.languages == ["de"])
        let center = try scenario.play(relativeTo: appFile).center
        #expect(center.render(for: scenario.viewer).groups.first?.summary == "2 weitere Nachrichten von Michele und Teja")
    }

    @Test func aOneLineScenarioOfThousandsOfDeliveriesLoads() throws {
        // Issue 14's file: 2,000 deliveries on one line once took 15-25 s (a release build), counting every
        // key's line from the start of the file. Its speed is measured by Benchmarks/ScenarioBenchmarks, not
        // by a clock in a test on a shared machine; this checks that it loads whole.
        let names = ["Kritarth", "Teja", "Michele", "Ana", "Song by Song"]
        let events = (0..<2_000).map { index in
            let name = names[index % names.count]
            return #"{"deliver":{"app":"com.example.chat","id":"m\#(index)","payload":{"aps":{"alert":{"title":"\#(name)","body":"Message number \#(index) about the plan","summary-arg":"\#(name)"},"thread-id":"thread-\#(index % 7)","category":"msg","sound":"default"},"conversation":\#(index % 7)}}}"#
        }
        let directory = try TemporaryDirectory()
        let url = try directory.write(
            "one-line.json",
            #"{"apps":{"com.example.chat":{"categories":[{"identifier":"msg","categorySummaryFormat":"%u more messages from %@"}]}},"viewer":{"languages":["en"]},"events":["#
                + events.joined(separator: ",") + "]}")
        let scenario = try Scenario.load(contentsOf: url)
        #expect(scenario.events.count == 2_000)
    }

    @Test func anInvalidAppDescriptionIsNamed() throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write("app.json", #"{"apps": {"com.example.chat": {"categories": 3}}}"#)
        let push = try directory.write("push.apns", #"{"aps": {"alert": "hi"}}"#)
        do {
            _ = try Scenario.loadSimulatorPushes([push], app: nil, appFile: appFile)
            Issue.record("an invalid app description was accepted")
        } catch {
            #expect(error.description == "app.json: apps.com.example.chat.categories: expected an array, found a number")
        }
    }
}
