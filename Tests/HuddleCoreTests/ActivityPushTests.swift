import Foundation
import HuddleCore
import Testing

/// The `aps` of a liveactivity push, decoded with key paths (docs/push-types.md §2).
@Suite struct ActivityPushTests {
    static func decode(_ text: String) throws -> ActivityPush {
        try ActivityPush.decode(Array(text.utf8))
    }

    static func error(_ text: String) -> String? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func applesStartPayloadDecodes() throws {
        let push = try Self.decode("""
            {"aps": {"timestamp": 1234, "event": "start", "content-state": {"currentHealthLevel": 100},
              "attributes-type": "AdventureAttributes", "attributes": {"hero": {"name": "Power Panda"}},
              "alert": {"title": {"loc-key": "%@ is on an adventure!", "loc-args": ["Power Panda"]},
                        "body": "found a sword", "sound": "chime.aiff"},
              "input-push-token": 1, "relevance-score": 100, "stale-date": 2000}}
            """)
        #expect(push.event == .start)
        #expect(push.timestamp == Date(timeIntervalSince1970: 1234))
        #expect(push.attributesType == "AdventureAttributes")
        #expect(push.alert == ActivityAlert(title: .localized(key: "%@ is on an adventure!", arguments: ["Power Panda"]), body: .plain("found a sword"), sound: "chime.aiff"))
        #expect(push.inputPushToken)
        #expect(push.relevanceScore == 100)  // relative, not a notification's 0…1
        #expect(push.staleDate == Date(timeIntervalSince1970: 2000))
        #expect(push.notes.isEmpty)
    }

    @Test(arguments: [
        (#"{"aps": {"timestamp": 1, "content-state": {}}}"#, "aps.event: is missing"),
        (#"{"aps": {"timestamp": 1, "event": "stop", "content-state": {}}}"#, "aps.event: expected start, update or end, found \"stop\""),
        (#"{"aps": {"event": "update", "content-state": {}}}"#, "aps.timestamp: is missing"),
        (#"{"aps": {"event": "update", "timestamp": 1760000000000, "content-state": {}}}"#, "aps.timestamp: expected seconds since 1970, found 1760000000000 (milliseconds?)"),
        (#"{"aps": {"event": "update", "timestamp": "1"}}"#, "aps.timestamp: expected a number, found a string"),
        (#"{"aps": {"event": "update", "timestamp": 1}}"#, "aps.content-state: is missing"),
        (#"{"aps": {"event": "update", "timestamp": 1, "content-state": []}}"#, "aps.content-state: expected an object, found an array"),
        (#"{"aps": {"event": "start", "timestamp": 1, "content-state": {}, "attributes": {}}}"#, "aps.attributes-type: is missing"),
        (#"{"aps": {"event": "start", "timestamp": 1, "content-state": {}, "attributes-type": "A"}}"#, "aps.attributes: is missing"),
        (#"{"aps": {"event": "start", "timestamp": 1, "content-state": {}, "attributes-type": "A", "attributes": {}, "input-push-token": 1, "input-push-channel": "c"}}"#, "aps.input-push-channel: cannot go with input-push-token"),
        (#"{"aps": {"event": "end", "timestamp": 1, "alert": {"title": 3}}}"#, "aps.alert.title: expected a string or an object"),
        (#"{"aps": {"event": "end", "timestamp": 1, "dismissal-date": -5}}"#, "aps.dismissal-date: expected seconds since 1970"),
        (#"{"event": "end"}"#, "aps: is missing"),
        ("[", "the payload is not valid JSON"),
        ("", "the payload is empty"),
    ])
    func aWrongPayloadNamesTheKeyPath(text: String, message: String) {
        #expect(Self.error(text)?.hasPrefix(message) == true, "\(Self.error(text) ?? "decoded")")
    }

    @Test func aPayloadOverFourKilobytesIsRefused() {
        let big = #"{"aps": {"event": "end", "timestamp": 1, "content-state": {"x": ""# + String(repeating: "a", count: 4096) + "\"}}}"
        #expect(Self.error(big)?.contains("more than the 4096 allowed") == true)
    }

    @Test func keysIOSDoesNotReadForTheEventAreNoted() throws {
        let update = try Self.decode(#"{"aps": {"event": "update", "timestamp": 1, "content-state": {}, "dismissal-date": 5, "attributes": {}}}"#)
        #expect(update.notes.map(\.path) == ["aps.attributes", "aps.dismissal-date"])
        #expect(update.notes.allSatisfy { $0.kind == .ignoredKey })
    }

    @Test func aStartWithoutAlertAndAnEndWithoutContentStateAreNoted() throws {
        let start = try Self.decode(#"{"aps": {"event": "start", "timestamp": 1, "content-state": {}, "attributes-type": "A", "attributes": {}}}"#)
        #expect(start.notes.map(\.kind) == [.startWithoutAlert])
        let end = try Self.decode(#"{"aps": {"event": "end", "timestamp": 1, "dismissal-date": 9}}"#)
        #expect(end.notes.map(\.kind) == [.endWithoutContentState])
        #expect(end.dismissalDate == Date(timeIntervalSince1970: 9))
    }
}
