import Foundation
import HuddleCore
import HuddleTestSupport
import Testing

/// `huddle preview`, run as a real process.
@Suite struct PreviewCommandTests {
    static let root = Fixtures.packageRoot()
    static let example = root.appendingPathComponent("Examples/wwdc.json").path

    @Test func jsonIsTheRenderedCenter() async throws {
        let output = try await CommandRunner.huddle().run(["preview", Self.example, "--format", "json"])
        #expect(output.status == 0, "\(output.standardError)")
        let json = try JSONParser.parse(output.standardOutput)
        guard case .array(let groups)? = json["groups"] else { Issue.record("no groups"); return }
        #expect(groups.count == 9)
        #expect(json["languages"] == ["en"])
        #expect(groups.contains { $0["summary"] == "7 more episodes from Song by Song and Teja" })
    }

    @Test func optionsOverrideTheViewer() async throws {
        let output = try await CommandRunner.huddle().run(["preview", Self.example, "--format", "json", "--locked", "--languages", "de-AT,en"])
        #expect(output.status == 0)
        let json = try JSONParser.parse(output.standardOutput)
        #expect(json["locked"] == true)
        #expect(json["languages"] == ["de-AT", "en"])
        guard case .array(let groups)? = json["groups"] else { Issue.record("no groups"); return }
        #expect(groups.allSatisfy { $0["summary"] == .null })
        // de-AT reads the apps' German plurals.
        #expect(groups.contains { $0["hiddenPreviewsText"] == "4 Nachrichten" })
    }

    @Test func textIsPlainWhenPipedAndColouredOnRequest() async throws {
        let plain = try await CommandRunner.huddle().run(["preview", Self.example])
        #expect(plain.status == 0)
        #expect(!plain.standardOutput.contains("\u{1B}["))
        #expect(plain.standardOutput.contains("9 more notifications from National Geographic"))
        #expect(plain.standardOutput.contains("com.apple.MobileSMS › gr-51413"))
        let coloured = try await CommandRunner.huddle().run(["preview", Self.example, "--color"])
        #expect(coloured.standardOutput.contains("\u{1B}["))
    }

    @Test func theTextSpeaksTheViewersLanguage() async throws {
        let localized = Self.root.appendingPathComponent("Examples/localized.json").path
        let russian = try await CommandRunner.huddle().run(["preview", localized, "--languages", "ru", "--locked"])
        #expect(russian.status == 0, "\(russian.standardError)")
        #expect(russian.standardOutput.hasPrefix("Центр уведомлений · ru · заблокировано\n"))
        #expect(russian.standardOutput.contains("3 уведомления\n"))
        #expect(!russian.standardOutput.contains("notification") && !russian.standardOutput.contains("locked"))
        let english = try await CommandRunner.huddle().run(["preview", Self.example, "--locked"])
        #expect(english.standardOutput.hasPrefix("Notification Center · en · locked\n"))
        #expect(english.standardOutput.contains("4 notifications\n"))
    }

    @Test func anAndroidScenarioIsPreviewedAsAndroidsShade() async throws {
        let android = Self.root.appendingPathComponent("Examples/android.json").path
        let json = try await CommandRunner.huddle().run(["preview", android, "--format", "json"])
        #expect(json.status == 0, "\(json.standardError)")
        let shade = try JSONParser.parse(json.standardOutput)
        #expect(shade["platform"] == "android")
        guard case .array(let entries)? = shade["entries"] else { Issue.record("no entries"); return }
        // The chat's three stand apart (newest first), the news app's four are grouped.
        #expect(entries.map { $0["kind"] } == ["notification", "notification", "notification", "group"])
        #expect(entries[0]["title"] == "New messages from Teja" && entries[0]["body"] == "Teja wrote: Lunch?", "from values/strings.xml")
        #expect(entries[0]["alerting"]?["headsUp"] == true)
        #expect(entries[1]["channel"]?["id"] == "digest", "a channel the app lacks falls back to the manifest's default")
        #expect(entries[2]["alerting"]?["headsUp"] == false && entries[2]["channel"]?["importance"] == "high")
        #expect(entries[3]["count"] == 4)
        let german = try await CommandRunner.huddle().run(["preview", android, "--languages", "de-AT"])
        #expect(german.standardOutput.contains("Neue Nachrichten von Teja\n"), "from values-de/strings.xml")
        let locked = try await CommandRunner.huddle().run(["preview", android, "--locked"])
        #expect(locked.status == 0)
        #expect(locked.standardOutput.hasPrefix("Android lock screen\n"))
        #expect(locked.standardOutput.contains("Contents hidden") && !locked.standardOutput.contains("Final score"))
        #expect(locked.standardOutput.contains("Morning"), "a public notification shows whole on the lock screen")
        #expect(locked.standardOutput.contains("1 secret (not on the lock screen)"))
    }

    @Test func anInvalidScenarioExitsNonZeroAndRendersNothing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.json")
        try Data(#"{"apps": {"a.b": {}}, "events": [{"deliver": {"app": "a.b", "content": {"body": "ok"}}}, {"deliver": {"app": "a.b", "payload": {"aps": {"thread-id": 1}}}}]}"#.utf8).write(to: file)
        let output = try await CommandRunner.huddle().run(["preview", file.path, "--format", "json"])
        #expect(output.status == 65)
        #expect(output.standardOutput.isEmpty)
        #expect(output.standardError == "huddle preview: bad.json: event 1 (deliver): payload.aps.thread-id: expected a string, found a number\n")

        let truncated = directory.appendingPathComponent("truncated.json")
        try Data(#"{"apps": {"#.utf8).write(to: truncated)
        let second = try await CommandRunner.huddle().run(["preview", truncated.path])
        #expect(second.status == 65)
        #expect(second.standardError.contains("truncated.json: not valid JSON: line 1, column 11"))
    }

    @Test func simulatorPushFilesInArgumentOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String] = []
        for (index, name) in ["Kritarth", "Teja", "Michele"].enumerated() {
            let file = directory.appendingPathComponent("push-\(index).apns")
            try Data(#"{"Simulator Target Bundle": "com.example.chat", "aps": {"alert": {"title": "\#(name)", "body": "hi", "summary-arg": "\#(name)"}, "thread-id": "team"}}"#.utf8).write(to: file)
            paths.append(file.path)
        }
        let output = try await CommandRunner.huddle().run(["preview", "--format", "json"] + paths)
        #expect(output.status == 0, "\(output.standardError)")
        let json = try JSONParser.parse(output.standardOutput)
        let group = json["groups"]?.arrayValue?.first
        #expect(group?["id"] == "com.example.chat/team")
        #expect(group?["summary"] == "2 more notifications from Teja and Kritarth")
        #expect(group?["notifications"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["push-2", "push-1", "push-0"])

        let renamed = try await CommandRunner.huddle().run(["preview", "--app", "com.example.other", "--format", "json", paths[0]])
        #expect(try JSONParser.parse(renamed.standardOutput)["groups"]?.arrayValue?.first?["app"] == "com.example.other")
    }

    @Test func webPushesPreviewAsAHomeScreenWebAppShowsThem() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("huddle-web-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pushes = [
            ("1-packed", #"{"web_push": 8030, "notification": {"title": "Packed", "navigate": "https://shop.example/o/42", "tag": "order-42"}}"#),
            ("2-shipped", #"{"web_push": 8030, "notification": {"title": "Shipped", "navigate": "https://shop.example/o/42", "tag": "order-42"}}"#),
            ("3-sale", #"{"web_push": 8030, "notification": {"title": "Sale", "body": "20% off", "navigate": "https://shop.example/sale"}}"#),
            ("4-invalid", #"{"web_push": 8030, "notification": {"title": "", "navigate": "https://shop.example/"}}"#),
            ("5-sync", #"{"kind": "sync"}"#),
        ]
        var paths: [String] = []
        for (name, text) in pushes {
            let file = directory.appendingPathComponent("\(name).json")
            try Data(text.utf8).write(to: file)
            paths.append(file.path)
        }
        let output = try await CommandRunner.huddle().run(["preview", "--web-app", "https://shop.example", "--format", "json"] + paths)
        #expect(output.status == 0, "\(output.standardError)")
        let group = try JSONParser.parse(output.standardOutput)["groups"]?.arrayValue?.first
        #expect(group?["app"] == "web.shop.example")
        // The later tag replaced the earlier; the invalid and the other one show nothing, and say why.
        #expect(group?["notifications"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Sale", "Shipped"])
        #expect(output.standardError.contains("4-invalid.json: notification.title: the member is missing or is an empty string"))
        #expect(output.standardError.contains("5-sync.json: not a Declarative Web Push"))
    }

    @Test func aPlainPayloadWithoutAnAppSaysWhatToAdd() async throws {
        let directory = try TemporaryDirectory()
        let push = try directory.write("push.json", #"{"aps": {"alert": {"body": "Pizza?"}, "thread-id": "team"}}"#)
        let output = try await CommandRunner.huddle().run(["preview", push.path])
        #expect(output.status == 65)
        #expect(output.standardError.hasPrefix("huddle preview: push.json: event 0 (deliver): no app: say which app the push is for with --app BUNDLE"))
        #expect(!output.standardError.contains("is not a known key"))
        let named = try await CommandRunner.huddle().run(["preview", "--app", "com.example.chat", "--format", "json", push.path])
        #expect(named.status == 0, "\(named.standardError)")
        #expect(try JSONParser.parse(named.standardOutput)["groups"]?.arrayValue?.first?["id"] == "com.example.chat/team")
    }

    @Test func anAppFileGivesPushFilesTheAppsSummaryFormat() async throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write(
            "app.json",
            #"{"apps": {"com.example.chat": {"categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages from %@"}]}}}"#)
        var paths: [String] = []
        for name in ["Kritarth", "Teja", "Michele"] {
            paths.append(try directory.write(
                "\(name).apns",
                #"{"aps": {"alert": {"title": "\#(name)", "body": "hi", "summary-arg": "\#(name)"}, "thread-id": "team", "category": "msg"}}"#
            ).path)
        }
        let output = try await CommandRunner.huddle().run(["preview", "--app-file", appFile.path, "--format", "json"] + paths)
        #expect(output.status == 0, "\(output.standardError)")
        let group = try JSONParser.parse(output.standardOutput)["groups"]?.arrayValue?.first
        #expect(group?["app"] == "com.example.chat")
        #expect(group?["summary"] == "2 more messages from Teja and Kritarth")
    }

    @Test func aMissingFileIsReported() async throws {
        let output = try await CommandRunner.huddle().run(["preview", "/nonexistent/scenario.json"])
        #expect(output.status == 66)
        #expect(output.standardError.hasPrefix("huddle preview: scenario.json: cannot be read"))
    }
}

/// `huddle plural`, run as a real process.
@Suite struct PluralCommandTests {
    @Test func printsOneLinePerNumber() async throws {
        let output = try await CommandRunner.huddle().run(["plural", "ru", "1", "2", "5", "21", "1.5"])
        #expect(output.status == 0)
        #expect(output.standardOutput == "1 one\n2 few\n5 many\n21 one\n1.5 other\n")
    }

    @Test func decimalsKeepTheirVisibleDigits() async throws {
        let output = try await CommandRunner.huddle().run(["plural", "en", "1", "1.0", "1c6"])
        #expect(output.standardOutput == "1 one\n1.0 other\n1c6 other\n")
        let french = try await CommandRunner.huddle().run(["plural", "fr", "0", "1c6", "1000000"])
        #expect(french.standardOutput == "0 one\n1c6 many\n1000000 many\n")
    }

    @Test func ordinalsAndRules() async throws {
        let ordinal = try await CommandRunner.huddle().run(["plural", "--ordinal", "en", "1", "2", "3", "4", "11"])
        #expect(ordinal.standardOutput == "1 one\n2 two\n3 few\n4 other\n11 other\n")
        let rules = try await CommandRunner.huddle().run(["plural", "pt-PT", "--rules"])
        #expect(rules.standardOutput.contains("cardinal rules for pt_PT"))
        #expect(rules.standardOutput.contains("one: "))
    }

    @Test func aBadNumberIsAnError() async throws {
        let output = try await CommandRunner.huddle().run(["plural", "en", "1..0"])
        #expect(output.status != 0)
        #expect(output.standardError.contains("\"1..0\" is not a decimal number"))
    }
}
