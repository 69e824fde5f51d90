import HuddleAPNs
import HuddleCore
import Testing

@Suite struct APNsPayloadTests {
    static func decode(_ text: String) throws(PayloadError) -> APNsPayload {
        try APNsPayload.decode(Array(text.utf8))
    }

    @Test func decodesEveryAlertKey() throws {
        let payload = try Self.decode(#"""
            {"aps": {"alert": {"title": "Teja", "subtitle": "Lunch", "body": "On my way", "launch-image": "L.png",
                               "summary-arg": "Teja", "summary-arg-count": 2},
                     "badge": 3, "sound": {"critical": 1, "name": "alarm.caf", "volume": 0.5},
                     "thread-id": "gr-51413", "category": "group-messages", "content-available": 1, "mutable-content": 1,
                     "target-content-id": "conversation-7", "interruption-level": "time-sensitive",
                     "relevance-score": 0.75, "filter-criteria": "work"},
             "conversation": {"id": 7}, "sender": "teja"}
            """#)
        let content = payload.content
        #expect(content.title == .plain("Teja"))
        #expect(content.subtitle == .plain("Lunch"))
        #expect(content.body == .plain("On my way"))
        #expect(content.launchImageName == "L.png")
        #expect(content.summaryArgument == "Teja")
        #expect(content.summaryArgumentCount == 2)
        #expect(content.badge == 3)
        #expect(content.sound == NotificationSound(name: "alarm.caf", critical: true, volume: 0.5))
        #expect(content.threadIdentifier == "gr-51413")
        #expect(content.categoryIdentifier == "group-messages")
        #expect(content.targetContentIdentifier == "conversation-7")
        #expect(content.interruptionLevel == .timeSensitive)
        #expect(content.relevanceScore == 0.75)
        #expect(content.filterCriteria == "work")
        #expect(payload.contentAvailable)
        #expect(payload.mutableContent)
        #expect(content.userInfo.keys == ["conversation", "sender"])
        #expect(content.userInfo["conversation"] == ["id": 7])
        #expect(payload.notes.isEmpty)
    }

    @Test func aStringAlertIsTheBody() throws {
        let content = try Self.decode(#"{"aps": {"alert": "Hello", "sound": "default"}}"#).content
        #expect(content.body == .plain("Hello"))
        #expect(content.title == nil)
        #expect(content.sound == NotificationSound(name: "default"))
    }

    @Test func localizedKeysWinOverPlainText() throws {
        let content = try Self.decode(#"""
            {"aps": {"alert": {"title": "ignored", "title-loc-key": "T", "title-loc-args": ["a"],
                               "subtitle-loc-key": "S", "loc-key": "B", "loc-args": ["x", 2]}}}
            """#).content
        #expect(content.title == .localized(key: "T", arguments: ["a"]))
        #expect(content.subtitle == .localized(key: "S", arguments: []))
        #expect(content.body == .localized(key: "B", arguments: ["x", "2"]))
    }

    @Test func summaryKeysAtTheRootOfAps() throws {
        let content = try Self.decode(#"{"aps": {"alert": {"body": "b"}, "summary-arg": "Song by Song", "summary-arg-count": 3}}"#).content
        #expect(content.summaryArgument == "Song by Song")
        #expect(content.summaryArgumentCount == 3)
        let both = try Self.decode(#"{"aps": {"alert": {"body": "b", "summary-arg": "in alert", "summary-arg-count": 2}, "summary-arg": "root", "summary-arg-count": 5}}"#).content
        #expect(both.summaryArgument == "in alert")
        #expect(both.summaryArgumentCount == 2)
    }

    @Test func notesForUnknownKeysAndNonPositiveCounts() throws {
        let payload = try Self.decode(#"{"aps": {"alert": {"body": "b", "colour": "red", "summary-arg-count": 0}, "priority": 10}}"#)
        let notes = payload.notes.map(\.description)
        #expect(notes.contains("aps.priority is not an APNs key; it is ignored"))
        #expect(notes.contains("aps.alert.colour is not an APNs alert key; it is ignored"))
        #expect(notes.contains("summary-arg-count 0 is not positive; it counts as 1"))
        #expect(payload.content.effectiveSummaryArgumentCount == 1)
    }

    @Test(arguments: [
        (#"{"aps": {"thread_id": "t"}}"#, "aps.thread_id", "aps.thread-id"),
        (#"{"aps": {"threadId": "t"}}"#, "aps.threadId", "aps.thread-id"),
        (#"{"aps": {"Thread-ID": "t"}}"#, "aps.Thread-ID", "aps.thread-id"),
        (#"{"aps": {"catgory": "c"}}"#, "aps.catgory", "aps.category"),
        (#"{"aps": {"title": "Hi"}}"#, "aps.title", "aps.alert.title"),
        (#"{"aps": {"alert": {"body": "b", "summary_arg": "Teja"}}}"#, "aps.alert.summary_arg", "aps.alert.summary-arg"),
        (#"{"aps": {"alert": {"body": "b", "thread-id": "t"}}}"#, "aps.alert.thread-id", "aps.thread-id"),
    ])
    func unknownKeysSuggestTheKeyMeant(payload: String, path: String, suggestion: String) throws {
        let note = try #require(Self.decode(payload).notes.first)
        #expect(note.kind == .unknownKey)
        #expect(note.path == path)
        #expect(note.suggestion.map { "\($0.object).\($0.key)" } == suggestion)
    }

    @Test func unrelatedKeysGetNoSuggestion() throws {
        let notes = try Self.decode(#"{"aps": {"alert": {"body": "b", "colour": "red"}, "priority": 10}}"#).notes
        #expect(notes.map(\.path) == ["aps.priority", "aps.alert.colour"])
        #expect(notes.allSatisfy { $0.suggestion == nil })
    }

    @Test func summaryCountNotesNameWhereTheCountIs() throws {
        let inAlert = try Self.decode(#"{"aps": {"alert": {"body": "b", "summary-arg-count": 0}}}"#).notes
        #expect(inAlert.map(\.kind) == [.summaryArgumentCountNotPositive])
        #expect(inAlert.first?.path == "aps.alert.summary-arg-count")
        let atRoot = try Self.decode(#"{"aps": {"alert": {"body": "b"}, "summary-arg-count": 2000000}}"#).notes
        #expect(atRoot.map(\.kind) == [.summaryArgumentCountTooLarge])
        #expect(atRoot.first?.path == "aps.summary-arg-count")
    }

    @Test func liveActivityKeysAreAcceptedAndChecked() throws {
        let payload = try Self.decode(#"""
            {"aps": {"timestamp": 1700000000, "event": "update", "content-state": {"score": 2}, "stale-date": 1700003600,
                     "dismissal-date": 1700007200, "attributes-type": "Match", "attributes": {"team": "A"}}}
            """#)
        #expect(!payload.content.isVisible)
        #expect(throws: PayloadError(.invalidValue, "expected an object, found a string", path: "aps.content-state")) {
            try Self.decode(#"{"aps": {"content-state": "x"}}"#)
        }
    }

    struct Refusal: Sendable, CustomStringConvertible {
        var payload: String
        var code: PayloadError.Code
        var message: String
        var description: String { message }
    }

    static let refusals: [Refusal] = [
        Refusal(payload: "", code: .empty, message: "the payload is empty"),
        Refusal(payload: #"{"aps": {"alert": "hi"}"#, code: .malformedJSON,
                message: "the payload is not valid JSON: line 1, column 24: unexpected end of input inside an object: the JSON is truncated"),
        Refusal(payload: #"["aps"]"#, code: .invalidValue, message: "expected an object, found an array"),
        Refusal(payload: #"{"custom": 1}"#, code: .invalidValue, message: "aps: is missing"),
        Refusal(payload: #"{"aps": {"thread-id": 42}}"#, code: .invalidValue, message: "aps.thread-id: expected a string, found a number"),
        Refusal(payload: #"{"aps": {"alert": {"title": ["x"]}}}"#, code: .invalidValue, message: "aps.alert.title: expected a string, found an array"),
        Refusal(payload: #"{"aps": {"alert": {"loc-args": [true], "loc-key": "K"}}}"#, code: .invalidValue, message: "aps.alert.loc-args[0]: expected a string, found a boolean"),
        Refusal(payload: #"{"aps": {"alert": {"loc-args": ["x"]}}}"#, code: .invalidValue, message: "aps.alert.loc-key: is missing, but its arguments are given"),
        Refusal(payload: #"{"aps": {"badge": "3"}}"#, code: .invalidValue, message: "aps.badge: expected an integer, found a string"),
        Refusal(payload: #"{"aps": {"badge": -1}}"#, code: .invalidValue, message: "aps.badge: must be from 0 to 2147483647, found -1"),
        Refusal(payload: #"{"aps": {"alert": {"summary-arg-count": 1.5}}}"#, code: .invalidValue, message: "aps.alert.summary-arg-count: expected an integer, found 1.5"),
        Refusal(payload: #"{"aps": {"interruption-level": "urgent"}}"#, code: .invalidValue,
                message: #"aps.interruption-level: expected one of passive, active, time-sensitive, critical, found "urgent""#),
        Refusal(payload: #"{"aps": {"relevance-score": 2}}"#, code: .invalidValue, message: "aps.relevance-score: must be between 0 and 1, found 2.0"),
        Refusal(payload: #"{"aps": {"sound": 1}}"#, code: .invalidValue, message: "aps.sound: expected a string or an object, found a number"),
        Refusal(payload: #"{"aps": {"sound": {"volume": 3}}}"#, code: .invalidValue, message: "aps.sound.volume: must be between 0 and 1, found 3.0"),
        Refusal(payload: #"{"aps": {"content-available": "yes"}}"#, code: .invalidValue, message: "aps.content-available: expected an integer, found a string"),
    ]

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        do {
            _ = try Self.decode(refusal.payload)
            Issue.record("accepted \(refusal.payload)")
        } catch {
            #expect(error.code == refusal.code)
            #expect(error.description == refusal.message)
        }
    }

    @Test func sizeLimits() throws {
        let padding = String(repeating: "x", count: APNsPayload.maximumSize - #"{"aps":{"alert":""}}"#.utf8.count)
        let exact = #"{"aps":{"alert":"\#(padding)"}}"#
        #expect(exact.utf8.count == 4096)
        _ = try Self.decode(exact)
        let over = #"{"aps":{"alert":"\#(padding)x"}}"#
        #expect(throws: PayloadError(.tooLarge, "the payload is 4097 bytes, more than the 4096 allowed")) { try Self.decode(over) }
        _ = try APNsPayload.decode(Array(over.utf8), maximumSize: APNsPayload.maximumVoIPSize)
    }
}
