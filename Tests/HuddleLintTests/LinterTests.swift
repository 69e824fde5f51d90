import Foundation
import HuddleAPNs
import HuddleLint
import HuddleTestSupport
import Testing

/// Which app each payload and catalog belongs to, app descriptions, scenarios, and inputs from strangers.
@Suite struct LinterTests {
    static func lint(_ paths: [String], _ configure: (inout Linter.Configuration) -> Void = { _ in }) -> LintReport {
        var configuration = Linter.Configuration()
        configure(&configuration)
        return Linter(configuration: configuration).lint(paths)
    }

    static func rules(_ report: LintReport) -> [LintRule] { report.findings.map(\.rule) }

    static let app = #"{"apps": {"com.example.chat": {"localizations": "Strings", "categories": [{"identifier": "msg", "categorySummaryFormat": "%u more messages"}]}}}"#

    /// A web push request's `exp` is judged by each service's own check: just past, Mozilla's lateness still takes it.
    @Test func aWebPushRequestsExpiryNamesTheServicesThatRefuseIt() throws {
        let directory = try TemporaryDirectory()
        let now = Int64(Date().timeIntervalSince1970)
        func request(exp: Int64) -> String {
            #"{"vapid": {"aud": "https://push.example", "exp": \#(exp), "sub": "mailto:ops@shop.example.com"}}"#
        }
        let justPast = try directory.write("just-past.json", request(exp: now - 30))
        let longPast = try directory.write("long-past.json", request(exp: now - 3600))
        let tooLate = try directory.write("too-late.json", request(exp: now + 48 * 3600))
        func messages(_ file: URL) -> [String] { Self.lint([file.path]).findings.map(\.message) }
        #expect(messages(justPast) == ["exp has passed: apple and fcm refuse the token"])
        #expect(messages(longPast) == ["exp has passed: every service refuses the token"])
        #expect(messages(tooLate) == ["exp is more than 24 hours ahead (RFC 8292 §2): every service refuses it"])
    }

    @Test func anAppFileDescribesTheAppOfPayloadsAndFindsItsLocalizations() throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write("app/app.json", Self.app)
        try directory.write("app/Strings/en.lproj/Localizable.strings", #""NEW" = "%@ wrote";"#)
        try directory.write("pushes/a.json", #"{"aps": {"alert": {"loc-key": "NEW", "loc-args": ["Teja"], "summary-arg": "Teja"}, "category": "msg", "thread-id": "t"}}"#)
        try directory.write("pushes/b.json", #"{"aps": {"alert": {"loc-key": "OLD"}, "category": "photo", "thread-id": "t"}}"#)
        let report = Self.lint([directory.url.appendingPathComponent("pushes").path]) { $0.appFiles = [appFile.path] }
        // Sorted by file and position: b.json's loc-key comes before its category.
        #expect(Self.rules(report) == [.unusedSummaryArg, .unknownLocKey, .unknownCategory])
        #expect(report.fileCount == 4)
        // Without the description nothing is known of categories or strings.
        #expect(Self.lint([directory.url.appendingPathComponent("pushes").path]).findings.isEmpty)
    }

    @Test func aScenarioChecksEachPushAgainstTheCategoriesOfItsTime() throws {
        let directory = try TemporaryDirectory()
        let scenario = try directory.write("scenario.json", """
            {"apps": {"com.example.chat": {"categories": [{"identifier": "msg"}]}},
             "events": [
               {"deliver": {"app": "com.example.chat", "payload": {"aps": {"alert": "a", "category": "photo", "thread-id": "t"}}}},
               {"setCategories": {"app": "com.example.chat", "categories": [{"identifier": "photo"}]}},
               {"deliver": {"app": "com.example.chat", "payload": {"aps": {"alert": "b", "category": "photo", "thread-id": "t"}}}},
               {"deliver": {"app": "com.example.chat", "payload": {"aps": {"alert": "c", "category": "msg", "thread-id": "t"}}}}
             ]}
            """)
        let report = Self.lint([scenario.path])
        #expect(report.findings.map { "\($0.rule.id) \($0.line ?? 0)" } == ["unknown-category 3", "unknown-category 6"])
    }

    @Test func liveActivityTypesDeclaredInAnAppFileCheckAScenarioThatDeclaresNone() throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write(
            "app.json", #"{"apps": {"com.example.delivery": {"liveActivities": {"types": [{"name": "DeliveryAttributes", "contentState": {"eta": "date"}}]}}}}"#)
        let scenario = try directory.write("scenario.json", """
            {"apps": {"com.example.delivery": {}},
             "events": [{"liveActivity": {"app": "com.example.delivery", "activity": "a", "payload": {"aps": {
               "timestamp": 1528304400, "event": "start", "attributes-type": "DeliveryAttributes", "attributes": {},
               "content-state": {"driver": "Ana"}, "alert": {"title": "t", "body": "b"}}}}}]}
            """)
        #expect(Self.rules(Self.lint([scenario.path]) { $0.appFiles = [appFile.path] }) == [.liveActivityContentState])
        #expect(Self.lint([scenario.path]).findings.isEmpty)
    }

    @Test func aSimulatorFileNamesItsAppAndTheAppOptionOverridesIt() throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write("app.json", #"{"apps": {"com.example.chat": {"categories": [{"identifier": "msg"}]}}}"#)
        let push = try directory.write(
            "push.apns", #"{"Simulator Target Bundle": "com.example.other", "aps": {"alert": "hi", "category": "nope"}}"#)
        #expect(Self.lint([push.path]) { $0.appFiles = [appFile.path] }.findings.isEmpty)
        #expect(Self.rules(Self.lint([push.path]) {
            $0.appFiles = [appFile.path]
            $0.app = "com.example.chat"
        }) == [.unknownCategory])
    }

    @Test func catalogsWithoutAnAppAreCheckedOnTheirOwnAndServeLoneLoadKeys() throws {
        let directory = try TemporaryDirectory()
        try directory.write("Resources/de.lproj/Localizable.strings", #""HELLO" = "Hallo %@";"#)
        try directory.write("Resources/Base.lproj/Localizable.strings", #""HELLO" = "Hello";"#)
        try directory.write("push.json", #"{"aps": {"alert": {"loc-key": "HELLO", "loc-args": ["Teja"]}}}"#)
        let report = Self.lint([directory.url.path]) { $0.developmentLanguage = "en" }
        // Base.lproj is the development language: de reads an argument en does not, and the push sends one
        // to the en text, which reads none.
        #expect(Self.rules(report) == [.formatMismatch, .locArgsCount])
        #expect(report.findings.first?.file.hasSuffix("Resources/de.lproj/Localizable.strings") == true)
        #expect(report.findings.last?.severity == .warning)
    }

    @Test func anUnknownKeyHoldingADotIsLocatedAtItself() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"aps": {"alert": "hi", "thread.id": "t"}}"#
        let push = try directory.write("push.json", text)
        let report = Self.lint([push.path])
        #expect(report.findings.map(\.rule) == [.unknownKey])
        let key = try #require(text.range(of: #""thread.id""#))
        #expect(report.findings.first?.column == text.unicodeScalars.distance(from: text.startIndex, to: key.lowerBound) + 1)
        #expect(report.findings.first?.message.hasSuffix("did you mean `thread-id`? (linted as an alert push)") == true)
    }

    /// A folder of pushes of several types is linted file by file, each by its own type's rules, read from its
    /// keys, and every finding says which type it was read as (issue 44). `--push-type` overrides the reading.
    @Test func eachPayloadFileIsLintedAsThePushTypeItsKeysSay() throws {
        let folder = Fixtures.directory().appendingPathComponent("PushTypes")
        let report = Self.lint([folder.path])
        let byFile = Dictionary(grouping: report.findings) { URL(fileURLWithPath: $0.file).lastPathComponent }
        let expected: [(file: String, rule: LintRule, context: String)] = [
            ("alert.json", .unknownKey, "(linted as an alert push)"),
            ("background.json", .unknownKey, #"(linted as a background push: aps has "content-available": 1 and no alert, badge or sound)"#),
            ("start.json", .liveActivityKey, #"(linted as a liveactivity push: aps has "event" and "content-state")"#),
            ("update.json", .liveActivityPayload, #"(linted as a liveactivity push: aps has "event" and "content-state")"#),
            ("end.json", .liveActivityKey, #"(linted as a liveactivity push: aps has "event")"#),
        ]
        for (file, rule, context) in expected {
            let findings = byFile[file] ?? []
            #expect(findings.map(\.rule) == [rule], "\(file): \(findings.map(\.message))")
            #expect(findings.allSatisfy { $0.message.hasSuffix(context) }, "\(file): \(findings.map(\.message))")
        }
        // A widget push is a widget push: content-changed is its key, not an unknown one.
        #expect(byFile["widgets.json"] == nil)
        // The update without a timestamp is the one error: as an alert push (the option), it has none.
        #expect(report.findings.filter { $0.severity == .error }.map(\.file).map { URL(fileURLWithPath: $0).lastPathComponent } == ["update.json"])
        let asAlerts = Self.lint([folder.appendingPathComponent("update.json").path]) { $0.pushType = .alert }
        #expect(asAlerts.findings.isEmpty)
        let named = Self.lint([folder.appendingPathComponent("background.json").path]) { $0.pushType = .background }
        #expect(named.findings.map(\.message).allSatisfy { $0.hasSuffix("(linted as a background push: --push-type)") })
    }

    /// A relevance-score outside 0…1 (Apple: "a number between 0 and 1") is refused, so the summary never ranks it.
    @Test(arguments: ["1.5", "-0.1", "\"0.5\""])
    func aRelevanceScoreOutsideZeroToOneIsAnInvalidPayload(score: String) throws {
        let directory = try TemporaryDirectory()
        let push = try directory.write("push.json", #"{"aps": {"alert": "hi", "relevance-score": \#(score)}}"#)
        let report = Self.lint([push.path])
        #expect(report.findings.map(\.rule) == [.invalidPayload])
        #expect(report.findings.first?.message.hasPrefix("aps.relevance-score: ") == true, "\(report.findings.map(\.message))")
    }

    /// An FCM message's apns block is linted as the APNs push FCM makes of it, at its place in the file; a message
    /// FCM takes has no finding of its own.
    @Test func anFCMMessagesAPNsPayloadIsLintedAsAnAPNsPush() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"message": {"token": "abc:def", "android": {"priority": "high"}, "apns": {"payload": {"aps": {"alert": "hi", "thread_id": "t"}}}}}"#
        let message = try directory.write("message.json", text)
        let report = Self.lint([message.path])
        #expect(report.findings.map(\.rule) == [.unknownKey])
        let key = try #require(text.range(of: #""thread_id""#))
        #expect(report.findings.first?.column == text.unicodeScalars.distance(from: text.startIndex, to: key.lowerBound) + 1)
        #expect(report.fileCount == 1)
    }

    /// The push type the apns block is linted as is the one FCM's translation gives it, as the server delivers it
    /// (issue 57): `alert` when the push has an alert (its own, or the message's notification), `background` without,
    /// so that a data message's block without `content-available` is found waking nothing, as on the phone.
    @Test func anFCMMessagesAPNsBlockIsLintedAsThePushTypeFCMSends() throws {
        let directory = try TemporaryDirectory()
        let silent = try directory.write("silent.json", #"{"message": {"token": "abc:def", "data": {"k": "v"}, "apns": {"payload": {"aps": {"badge": 1}}}}}"#)
        #expect(Self.rules(Self.lint([silent.path])) == [.pushTypePayload, .pushTypePayload])
        let waking = try directory.write("waking.json", #"{"message": {"token": "abc:def", "apns": {"payload": {"aps": {"content-available": 1}}}}}"#)
        #expect(Self.lint([waking.path]).findings.isEmpty)
        let shown = try directory.write(
            "shown.json", #"{"message": {"token": "abc:def", "notification": {"title": "Hi"}, "apns": {"payload": {"aps": {"badge": 1}}}}}"#)
        #expect(Self.lint([shown.path]).findings.isEmpty)
    }

    @Test func aVoIPPushMayBeLarger() throws {
        let directory = try TemporaryDirectory()
        let push = try directory.write("call.json", #"{"aps": {"alert": "\#(String(repeating: "x", count: 4_500))"}}"#)
        #expect(Self.rules(Self.lint([push.path])) == [.payloadTooLarge])
        #expect(Self.lint([push.path]) { $0.pushType = .voip }.findings.isEmpty)
    }

    @Test func otherJSONInAFolderIsPassedOverButNotWhenNamed() throws {
        let directory = try TemporaryDirectory()
        let contents = try directory.write("Assets.xcassets/AppIcon.appiconset/Contents.json", #"{"images": []}"#)
        let package = try directory.write("package.json", #"{"name": "x"}"#)
        try directory.write("broken.json", "{")
        let folder = Self.lint([directory.url.path])
        #expect(folder.findings.isEmpty)
        #expect(folder.fileCount == 0)
        #expect(Self.rules(Self.lint([package.path, contents.path])) == [.unreadableFile, .unreadableFile])
        #expect(Self.lint([directory.url.appendingPathComponent("missing").path]).exitStatus(failOn: .error) == 2)
    }

    @Test func appsOwnLocalizationsFolderIsReadOnce() throws {
        let directory = try TemporaryDirectory()
        try directory.write("app.json", #"{"apps": {"com.example.chat": {"localizations": "L"}}}"#)
        try directory.write("L/en.lproj/Localizable.strings", #""A" = "a"; "A" = "b";"#)
        let report = Self.lint([directory.url.path])
        #expect(Self.rules(report) == [.duplicateKey])
        #expect(report.fileCount == 2)
    }

    @Test func anAppFileAmongTheInputsIsReadOnceAndItsEventsLinted() throws {
        let directory = try TemporaryDirectory()
        let scenario = try directory.write(
            "scenario.json",
            #"{"apps": {"a.b": {"categories": [{"identifier": "msg", "categorySummaryFormat": "%s"}]}}, "events": [{"deliver": {"app": "a.b", "payload": {"aps": {"alert": "hi", "thread_id": "t"}}}}]}"#)
        let asDescriptionOnly = Self.lint([]) { $0.appFiles = [scenario.path] }
        #expect(Self.rules(asDescriptionOnly) == [.invalidFormat])
        let both = Self.lint([directory.url.path]) { $0.appFiles = [scenario.path] }
        #expect(Self.rules(both) == [.invalidFormat, .unknownKey])
        #expect(both.fileCount == 1)
    }

    @Test func aRefusedFormatIsReportedInTheFileWhoseTextIsUsed() throws {
        // MORE is in both files of en; the .stringsdict wins (as on iOS), and only its text is refused.
        let directory = try TemporaryDirectory()
        let appFile = try directory.write(
            "app.json",
            #"{"apps": {"a.b": {"localizations": "L", "categories": [{"identifier": "msg", "categorySummaryFormat": {"key": "MORE"}}]}}}"#)
        try directory.write("L/en.lproj/Localizable.strings", #""MORE" = "%u more";"#)
        try directory.write("L/en.lproj/Localizable.stringsdict", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>MORE</key>
                <dict>
                    <key>NSStringLocalizedFormatKey</key>
                    <string>%#@n@</string>
                    <key>n</key>
                    <dict>
                        <key>NSStringFormatSpecTypeKey</key>
                        <string>NSStringPluralRuleType</string>
                        <key>one</key>
                        <string>%u more</string>
                        <key>other</key>
                        <string>%s more</string>
                    </dict>
                </dict>
            </dict>
            </plist>
            """)
        let report = Self.lint([appFile.path])
        #expect(report.findings.map { "\($0.rule.id) \(($0.file as NSString).lastPathComponent):\($0.line ?? 0)" } == [
            "invalid-format Localizable.stringsdict:4"
        ])
    }

    @Test func anInvalidDescriptionIsLocatedAtTheWrongValue() throws {
        let directory = try TemporaryDirectory()
        // A bundle identifier holds dots, as the key path that names the value does.
        let appFile = try directory.write("app.json", "{\n  \"apps\": {\n    \"com.example.chat\": {\n      \"categories\": 3\n    }\n  }\n}\n")
        let scenario = try directory.write(
            "scenario.json", "{\"apps\": {\"a.b\": {}},\n \"events\": [{\"deliver\": {\"app\": \"a.b\",\n    \"id\": 3}}]}")
        let report = Self.lint([appFile.path, scenario.path])
        #expect(report.findings.map { "\($0.rule.id) \($0.line ?? 0):\($0.column ?? 0)" } == ["invalid-scenario 4:7", "invalid-scenario 3:5"])
    }

    @Test func aMissingLocalizationsFolderIsReportedAtTheDescription() throws {
        let directory = try TemporaryDirectory()
        let appFile = try directory.write("app.json", #"{"apps": {"com.example.chat": {"localizations": "Nowhere"}}}"#)
        let report = Self.lint([appFile.path])
        #expect(Self.rules(report) == [.invalidScenario])
        #expect(report.findings.first?.line == 1)
    }
}

/// Every file is from a stranger: nothing may crash, hang, or take more than linear time.
@Suite struct HostileLintInputTests {
    @Test func deepJSONIsRefusedNotRecursedInto() throws {
        let directory = try TemporaryDirectory()
        let deep = try directory.write("deep.json", String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))
        let report = LinterTests.lint([deep.path])
        #expect(LinterTests.rules(report) == [.unreadableFile])
        #expect(report.findings.first?.message.contains("nesting deeper than 128") == true)
    }

    @Test func aLargeFileIsRefusedBeforeItIsRead() throws {
        let directory = try TemporaryDirectory()
        // A sparse 9 MiB file: its size is known without writing it.
        let handle = try FileHandle(forWritingTo: try directory.write("en.lproj/Huge.strings", ""))
        try handle.truncate(atOffset: 9 << 20)
        try handle.close()
        let report = LinterTests.lint([directory.url.appendingPathComponent("en.lproj").path])
        #expect(LinterTests.rules(report) == [.unreadableFile])
        #expect(report.findings.first?.message.contains("more than the 8388608 allowed") == true)
    }

    @Test func aFIFOIsNotOpened() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("push.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let report = LinterTests.lint([fifo.path])
        #expect(report.findings.map(\.message) == ["cannot be read: not a regular file"])
    }

    @Test func aLocalizationsFolderCountsAgainstTheFileLimit() throws {
        // A description may name any folder ("/" too): its catalogs are read within the run's limit.
        let directory = try TemporaryDirectory()
        let appFile = try directory.write("app.json", #"{"apps": {"a.b": {"localizations": "L"}}}"#)
        for language in ["de", "en", "fr"] {
            try directory.write("L/\(language).lproj/Localizable.strings", #""A" = "a";"#)
        }
        let report = LinterTests.lint([]) {
            $0.appFiles = [appFile.path]
            $0.maximumFiles = 2
        }
        #expect(report.fileCount == 2)
        #expect(report.findings.map(\.message) == ["not checked: the run stopped at 2 files; lint fewer folders at a time"])
    }

    @Test func aLoopOfLinksEnds() throws {
        let directory = try TemporaryDirectory()
        try directory.write("a/push.json", #"{"aps": {"alert": "hi"}}"#)
        try FileManager.default.createSymbolicLink(
            at: directory.url.appendingPathComponent("a/loop"), withDestinationURL: directory.url.appendingPathComponent("a"))
        let report = LinterTests.lint([directory.url.path])
        #expect(report.fileCount == 1)
    }

    @Test func aLongChainOfPluralVariablesIsRead() throws {
        // 5,000 variables each using the next: the readers and the signature walk must neither recurse
        // without bound nor take quadratic time.
        var variables = ""
        for index in 0..<5_000 {
            let next = index + 1 < 5_000 ? "%#@v\(index + 1)@" : "%u"
            variables += "<key>v\(index)</key><dict><key>NSStringFormatSpecTypeKey</key><string>NSStringPluralRuleType</string><key>other</key><string>\(next)</string></dict>"
        }
        let plist = #"<?xml version="1.0"?><plist version="1.0"><dict><key>CHAIN</key><dict><key>NSStringLocalizedFormatKey</key><string>%#@v0@</string>"# + variables + "</dict></dict></plist>"
        let directory = try TemporaryDirectory()
        try directory.write("en.lproj/Localizable.stringsdict", plist)
        let report = LinterTests.lint([directory.url.path])
        #expect(report.fileCount == 1)
        #expect(!report.hasUnreadableInput)
    }

    /// A scan per finding would take many minutes in a debug build: the time limit fails it.
    @Test(.timeLimit(.minutes(1))) func manyFindingsInAOneLineScenarioAreLocatedInOnePass() throws {
        // 2,000 pushes on one line, each with an unknown key: 2,000 findings, located by one scan.
        let events = (0..<2_000).map { #"{"deliver": {"app": "a.b", "payload": {"aps": {"alert": "m\#($0)", "thread_id": "t"}}}}"# }
        let directory = try TemporaryDirectory()
        let scenario = try directory.write("one-line.json", #"{"apps": {"a.b": {}}, "events": ["# + events.joined(separator: ",") + "]}")
        let report = LinterTests.lint([scenario.path])
        #expect(report.findings.count == 2_000)
        #expect(report.findings.allSatisfy { $0.rule == .unknownKey && $0.line == 1 })
        #expect(Set(report.findings.compactMap(\.column)).count == 2_000)
    }
}
