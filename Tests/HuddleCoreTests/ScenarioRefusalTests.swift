import HuddleAPNs
import HuddleCore
import Testing

/// A scenario that is not valid is refused whole, with the event index and the reason.
@Suite struct ScenarioRefusalTests {
    static func play(_ text: String) throws -> Center {
        try Scenario(json: try JSONParser.parse(text), decodePayload: Scenario.decodePayload).play()
    }

    static func refusal(_ text: String) -> String? {
        do {
            _ = try play(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static let app = #""apps": {"com.example.app": {}}"#

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var scenario: String
        var message: String
        var description: String { name }
    }

    static let cases: [Case] = [
        // Device settings (issue 43): each bad value named where it is.
        Case(
            name: "a summary without times",
            scenario: #"{\#(app), "device": {"summary": {"enabled": true, "times": []}}}"#,
            message: "device.summary: summary.times: give at least one time"),
        Case(
            name: "a summary time that is no time",
            scenario: #"{\#(app), "device": {"summary": {"times": ["8am"]}}}"#,
            message: #"device.summary.times[0]: expected a time of day like "08:00""#),
        Case(
            name: "an unknown time zone",
            scenario: #"{\#(app), "device": {"timeZone": "Mars/Olympus"}}"#,
            message: #"device.timeZone: timeZone: "Mars/Olympus" is not a time zone (expected an IANA name such as Europe/Paris)"#),
        Case(
            name: "a Focus both on and scheduled",
            scenario: #"{\#(app), "device": {"focus": {"on": true, "schedule": {"from": "22:00", "to": "07:00"}}}}"#,
            message: #"device.focus: a Focus is either "on" or on a "schedule", not both"#),
        Case(
            name: "an unknown Lock Screen layout",
            scenario: #"{\#(app), "device": {"lockScreen": "grid"}}"#,
            message: #"device.lockScreen: expected count, stack or list, found "grid""#),
        Case(
            name: "an unknown capability",
            scenario: #"{"apps": {"com.example.app": {"capabilities": ["pushToTalk"]}}}"#,
            message: #"apps.com.example.app.capabilities[0]: unknown capability "pushToTalk" (expected timeSensitive or criticalAlerts)"#),
        Case(
            name: "an advance without a date",
            scenario: #"{\#(app), "events": [{"advance": {}}]}"#,
            message: #"event 0 (advance): an advance event says to when, with "date""#),
        Case(
            name: "a setDevice with a bad value",
            scenario: #"{\#(app), "events": [{"setDevice": {"focus": {"schedule": {"from": "25:00", "to": "07:00"}}}}]}"#,
            message: #"event 0 (setDevice): focus.schedule.from: expected a time of day like "22:00""#),
        Case(
            name: "%s in a summary format",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "categorySummaryFormat": "%s more"}]}}, "events": []}"#,
            message: #"apps.com.example.app.categories: app "com.example.app": category "chat": categorySummaryFormat "%s more": conversion "%s" at offset 0 is not allowed"#),
        Case(
            name: "%n in a placeholder",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "hiddenPreviewsBodyPlaceholder": "%u messages%n"}]}}, "events": []}"#,
            message: #"category "chat": hiddenPreviewsBodyPlaceholder "%u messages%n": conversion "%n" at offset 11 is not allowed"#),
        Case(
            name: "a second %@",
            scenario: #"{\#(app), "events": [{"setCategories": {"app": "com.example.app", "categories": [{"identifier": "chat", "categorySummaryFormat": "%u from %@ and %@"}]}}]}"#,
            message: #"event 0 (setCategories): app "com.example.app": category "chat": categorySummaryFormat "%u from %@ and %@": conversion "%@" at offset 15: a second %@ is not allowed"#),
        Case(
            name: "width flags",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "categorySummaryFormat": "%5u more"}]}}, "events": []}"#,
            message: #"conversion "%5u" at offset 0 has width, precision or flags, which are not allowed"#),
        Case(
            name: "precision",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "categorySummaryFormat": "%.2u more"}]}}, "events": []}"#,
            message: #"conversion "%.2u" at offset 0 has width, precision or flags"#),
        Case(
            name: "a second count",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "categorySummaryFormat": "%u of %u"}]}}, "events": []}"#,
            message: #"conversion "%u" at offset 6: a second count conversion is not allowed"#),
        Case(
            name: "a string in argument 1",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "categorySummaryFormat": "%@ sent %u"}]}}, "events": []}"#,
            message: #"conversion "%@" at offset 0: argument 1 is not the summary argument"#),
        Case(
            name: "a string in a placeholder",
            scenario: #"{"apps": {"com.example.app": {"categories": [{"identifier": "chat", "hiddenPreviewsBodyPlaceholder": "%u from %@"}]}}, "events": []}"#,
            message: #"a placeholder takes only a count (%u), not a string"#),
        Case(
            name: "a payload value of the wrong type",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "id": "a", "payload": {"aps": {"alert": "hi"}}}}, {"deliver": {"app": "com.example.app", "payload": {"aps": {"alert": "hi", "thread-id": 7}}}}]}"#,
            message: "event 1 (deliver): payload.aps.thread-id: expected a string, found a number"),
        Case(
            name: "a summary count that is not an integer",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "payload": {"aps": {"alert": {"body": "hi", "summary-arg-count": "3"}}}}}]}"#,
            message: "event 0 (deliver): payload.aps.alert.summary-arg-count: expected an integer, found a string"),
        Case(
            name: "a badge that is a boolean",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "payload": {"aps": {"alert": "hi", "badge": true}}}}]}"#,
            message: "event 0 (deliver): payload.aps.badge: expected an integer, found a boolean"),
        Case(
            name: "a payload without aps",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "payload": {"alert": "hi"}}}]}"#,
            message: "event 0 (deliver): payload.aps: is missing"),
        Case(
            name: "an unknown app",
            scenario: #"{\#(app), "events": [{"remove": {"app": "com.example.app", "ids": []}}, {"deliver": {"app": "com.example.nope", "content": {"body": "hi"}}}]}"#,
            message: #"event 1 (deliver): app: unknown app "com.example.nope" (declare it under "apps")"#),
        Case(
            name: "an unknown event",
            scenario: #"{\#(app), "events": [{"explode": {"app": "com.example.app"}}]}"#,
            message: "event 0 (event): events[0]: an event is an object with one of the keys deliver, remove, removeGroup, removeAll, setCategories, setSettings"),
        Case(
            name: "a misspelt content key",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "content": {"body": "hi", "threadIdentifer": "x"}}}]}"#,
            message: "event 0 (deliver): content.threadIdentifer: is not a known key"),
        Case(
            name: "an unknown grouping",
            scenario: #"{\#(app), "events": [{"setSettings": {"app": "com.example.app", "grouping": "byThread"}}]}"#,
            message: #"event 0 (setSettings): grouping: expected one of automatic, byApp, off, found "byThread""#),
        Case(
            name: "a bad date",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "date": "yesterday", "content": {"body": "hi"}}}]}"#,
            message: "event 0 (deliver): date: expected a date like 2018-06-06T17:05:00Z"),
        Case(
            name: "both payload and content",
            scenario: #"{\#(app), "events": [{"deliver": {"app": "com.example.app", "content": {"body": "hi"}, "payload": {"aps": {}}}}]}"#,
            message: #"event 0 (deliver): a deliver event takes either "payload" or "content""#),
    ]

    @Test(arguments: cases)
    func refuses(_ testCase: Case) {
        let message = Self.refusal(testCase.scenario)
        #expect(message?.contains(testCase.message) == true, "got: \(message ?? "no error")")
    }

    @Test func truncatedJSONNamesTheLine() {
        do {
            _ = try JSONParser.parse("{\n  \"apps\": {\n    \"com.example.app\": {}\n")
            Issue.record("truncated JSON was accepted")
        } catch {
            #expect(error.description == "line 4, column 1: unexpected end of input inside an object: the JSON is truncated")
        }
    }

    @Test func refusalRendersNothing() {
        // The valid first event must not leak out as a partial center.
        let scenario = #"{\#(Self.app), "events": [{"deliver": {"app": "com.example.app", "content": {"body": "ok"}}}, {"deliver": {"app": "com.example.app", "payload": {"aps": {"alert": 1}}}}]}"#
        #expect(throws: ScenarioError.self) { try Self.play(scenario) }
    }
}
