import Foundation
import HuddleAPNs
import HuddleCore
import Testing

/// Scenario files start, update and end Live Activities as a device applies their pushes.
@Suite struct ScenarioLiveActivityTests {
    static func scenario(_ events: String, declaration: String = #"{"types": [{"name": "Delivery", "contentState": {"eta": "date"}}]}"#) throws -> Scenario {
        try Scenario(
            json: try JSONParser.parse(#"{"apps": {"com.example.app": {"liveActivities": \#(declaration)}}, "events": [\#(events)]}"#),
            decodePayload: Scenario.decodePayload)
    }

    static func push(_ aps: String, activity: String = "a", priority: Int? = nil) -> String {
        let priorityMember = priority.map { #", "priority": \#($0)"# } ?? ""
        return #"{"liveActivity": {"app": "com.example.app", "activity": "\#(activity)"\#(priorityMember), "payload": {"aps": \#(aps)}}}"#
    }

    @Test func pushesArePlayedAsTheDeviceAppliesThem() throws {
        let played = try Self.scenario([
            Self.push(#"{"timestamp": 1528304400, "event": "start", "attributes-type": "Delivery", "attributes": {}, "content-state": {"eta": 1}, "alert": "Hi"}"#),
            Self.push(#"{"timestamp": 1528304400, "event": "update", "content-state": {"eta": 2}}"#),
            Self.push(#"{"timestamp": 1528304401, "event": "update", "content-state": {}}"#),
            Self.push(#"{"timestamp": 1528304402, "event": "end", "content-state": {"eta": 3}, "dismissal-date": 1}"#),
            Self.push(#"{"timestamp": 1528304403, "event": "start", "attributes-type": "Delivery", "attributes": {}, "content-state": {"eta": 4}, "alert": "Again"}"#, activity: "b"),
        ].joined(separator: ",")).playLiveActivities()
        #expect(played.outcomes.map(\.event) == [0, 1, 2, 3, 4])
        #expect(played.outcomes.map(\.summary) == [
            "started Live Activity a (Delivery); its alert lit the screen (Hi)",
            "ignored: timestamp 1528304400 is not newer than the activity's 1528304400",
            "dropped: content-state has no `eta`",
            "ended Live Activity a and removed it at once (its dismissal-date has passed)",
            "started Live Activity b (Delivery); its alert lit the screen (Again)",
        ])
        #expect(played.activities.map(\.id) == ["b"])
        #expect(played.activities.first?.contentState == ["eta": 4])
    }

    @Test func aScenarioWithoutThemPlaysNone() throws {
        #expect(try !Self.scenario("").hasLiveActivities)
    }

    @Test(arguments: [
        (#"{"liveActivity": {"app": "com.example.app", "activity": "a", "priority": 1, "payload": {}}}"#,
         "events[0].liveActivity.priority", "a Live Activity push takes priority 5 or 10"),
        (#"{"liveActivity": {"app": "com.example.app", "payload": {}}}"#, "events[0].liveActivity.activity", "is missing"),
        (#"{"liveActivity": {"app": "com.example.app", "activity": "a", "payload": []}}"#, "events[0].liveActivity.payload", "expected an object"),
    ])
    func aWrongEventIsRefusedWithItsPath(event: String, path: String, message: String) {
        #expect { try Self.scenario(event) } throws: { error in
            (error as? ScenarioError)?.path == path && "\(error)".contains(message)
        }
    }

    @Test func twoStartsMayNotNameOneActivity() {
        let start = Self.push(#"{"timestamp": 1528304400, "event": "start", "attributes-type": "Delivery", "attributes": {}, "content-state": {"eta": 1}}"#)
        #expect { try Self.scenario([start, start].joined(separator: ",")) } throws: { error in
            (error as? ScenarioError)?.path == "events[1].liveActivity.activity" && "\(error)".contains("an earlier start named an activity \"a\"")
        }
    }

    @Test func aWrongDeclarationIsRefusedWithItsPath() {
        #expect { try Self.scenario("", declaration: #"{"types": [{"name": ""}]}"#) } throws: { error in
            "\(error)".contains("apps.com.example.app.liveActivities.types[0].name")
        }
    }
}
