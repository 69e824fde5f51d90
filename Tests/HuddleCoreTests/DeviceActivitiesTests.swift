import Foundation
import HuddleCore
import Testing

/// The rules of docs/push-types.md §2 and §4, one test a rule.
@Suite struct DeviceActivitiesTests {
    static let app = "com.example.pizza"
    static let t0 = Date(timeIntervalSince1970: 1_760_000_000)
    static let hour: TimeInterval = 3600
    static let declarations = try! ActivityDeclarations(types: [
        ActivityType(
            name: "DeliveryAttributes",
            attributes: ActivitySchema(json: ["order": "string"]),
            contentState: ActivitySchema(json: ["eta": "date", "driver": "string?"]))
    ])

    /// Seconds since 1970 as `aps` dates are written.
    static func unix(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970) }

    static func payload(_ event: String, at timestamp: Date, extra: String = "", contentState: String? = #"{"eta": 813000000}"#) -> JSONValue {
        let state = contentState.map { #", "content-state": \#($0)"# } ?? ""
        let start = event == "start" ? #", "attributes-type": "DeliveryAttributes", "attributes": {"order": "A1"}, "alert": {"title": "On its way"}"# : ""
        return try! JSONParser.parse(#"{"aps": {"event": "\#(event)", "timestamp": \#(unix(timestamp))\#(state)\#(start)\#(extra)}}"#)
    }

    /// A device with one activity started at t0, and that activity.
    static func started(
        extra: String = "", declarations: ActivityDeclarations = declarations, configuration: DeviceActivities.Configuration = .init()
    ) -> (DeviceActivities, LiveActivity, ActivityPushResult) {
        var device = DeviceActivities(configuration: configuration)
        let result = start(&device, extra: extra, declarations: declarations)
        guard let activity = result.startedActivity else {
            Issue.record("not started: \(result.outcome)")
            return (device, LiveActivity(id: "", app: "", typeName: "", attributes: nil, contentState: nil, timestamp: t0, startedAt: t0), result)
        }
        return (device, activity, result)
    }

    static func start(_ device: inout DeviceActivities, extra: String = "", declarations: ActivityDeclarations = declarations) -> ActivityPushResult {
        device.apply(
            payload: payload("start", at: t0, extra: extra), to: .pushToStart(app: app, typeName: "DeliveryAttributes"), priority: 10,
            declarations: declarations, at: t0, newActivity: NewActivityIdentity(id: "A", updateToken: "token-A"))
    }

    static func send(
        _ device: inout DeviceActivities, _ event: String, timestamp: Date, at now: Date, priority: Int = 10, extra: String = "",
        contentState: String? = #"{"eta": 813000000}"#, declarations: ActivityDeclarations = declarations
    ) -> ActivityPushResult {
        device.apply(
            payload: payload(event, at: timestamp, extra: extra, contentState: contentState), to: .activity(id: "A"), priority: priority,
            declarations: declarations, at: now, newActivity: NewActivityIdentity(id: "unused", updateToken: "unused"))
    }

    // MARK: Start

    @Test func aDeviceHoldsAtMostItsBoundOfActivitiesAcrossApps() {
        var device = DeviceActivities(configuration: .init(maximumHeldActivitiesPerDevice: 3))
        func start(_ app: String, id: String, at date: Date) -> ActivityOutcome {
            device.apply(
                payload: Self.payload("start", at: date), to: .pushToStart(app: app, typeName: "DeliveryAttributes"), priority: 10,
                declarations: Self.declarations, at: date, newActivity: NewActivityIdentity(id: id, updateToken: "token-\(id)")).outcome
        }
        for (index, app) in ["a.one", "a.two", "a.three"].enumerated() {
            guard case .started = start(app, id: "\(index)", at: Self.t0) else { Issue.record("not started"); return }
        }
        #expect(start("a.four", id: "3", at: Self.t0) == .dropped(.tooManyActivitiesOnDevice(limit: 3)))
        // An ended one makes room: the oldest ended goes.
        _ = device.apply(
            payload: Self.payload("end", at: Self.t0 + 1), to: .activity(id: "1"), priority: 10, declarations: Self.declarations,
            at: Self.t0 + 1, newActivity: NewActivityIdentity(id: "unused", updateToken: "unused"))
        guard case .started = start("a.four", id: "3", at: Self.t0 + 2) else { Issue.record("not started after an end"); return }
        #expect(device.activities.map(\.id) == ["0", "2", "3"])
    }

    @Test func aStartDroppedForTheDeviceRemovesNothingToMakeRoom() {
        // The app holds one ended activity, as many as it may; the device holds two live ones of another app, as
        // many as it may (its limit lowered since). Removing the app's ended one would not make room on the device.
        func activity(_ id: String, app: String, state: LiveActivity.State) -> LiveActivity {
            var activity = LiveActivity(
                id: id, app: app, typeName: "DeliveryAttributes", attributes: ["order": "A1"], contentState: ["eta": 813_000_000],
                timestamp: Self.t0, startedAt: Self.t0)
            activity.state = state
            if state == .ended { activity.endedAt = Self.t0 + 1 }
            return activity
        }
        let held = [activity("e", app: Self.app, state: .ended), activity("b1", app: "b.app", state: .active), activity("b2", app: "b.app", state: .active)]
        var device = DeviceActivities(
            activities: held, configuration: .init(maximumLiveActivitiesPerApp: 1, maximumHeldActivitiesPerApp: 1, maximumHeldActivitiesPerDevice: 2))
        #expect(Self.start(&device).outcome == .dropped(.tooManyActivitiesOnDevice(limit: 2)))
        #expect(device.activities.map(\.id) == ["e", "b1", "b2"])
    }

    @Test func aPushToStartTokenStartsAnActivityWithAnUpdateTokenAndItsAlertLightsTheScreen() {
        let (device, activity, result) = Self.started()
        #expect(activity.state == .active)
        #expect(activity.updateToken == "token-A")
        #expect(activity.attributes == ["order": "A1"])
        #expect(activity.startedAt == Self.t0)
        #expect(device.activity(updateToken: "token-A")?.id == "A")
        #expect(result.lightsScreen)
        #expect(result.alert?.title == .plain("On its way"))
        guard case .started(_, let reported) = result.outcome else { return }
        #expect(reported == nil, "the token is reported only with input-push-token: 1")
    }

    @Test func inputPushTokenReportsTheUpdateToken() {
        let (_, _, result) = Self.started(extra: #", "input-push-token": 1"#)
        #expect(result.outcome == .started(result.startedActivity!, reportedUpdateToken: "token-A"))
    }

    @Test func inputPushChannelListensOnTheChannelInsteadOfAToken() {
        let (_, activity, _) = Self.started(extra: ##", "input-push-channel": "dHN0""##)
        #expect(activity.channelID == "dHN0")
        #expect(activity.updateToken == nil)
    }

    @Test func aStartWhoseTypeIsNotTheTokensIsDropped() {
        var device = DeviceActivities()
        let result = device.apply(
            payload: Self.payload("start", at: Self.t0), to: .pushToStart(app: Self.app, typeName: "ScoreAttributes"), priority: 10,
            declarations: Self.declarations, at: Self.t0, newActivity: NewActivityIdentity(id: "A", updateToken: "t"))
        #expect(result.outcome == .dropped(.attributesTypeDoesNotMatchToken(payload: "DeliveryAttributes", token: "ScoreAttributes")))
        #expect(!result.lightsScreen)
        #expect(device.activities.isEmpty)
    }

    @Test func aTypeTheAppDidNotDeclareIsDroppedButAnAppThatDeclaresNothingTakesAnyObject() throws {
        let other = try ActivityDeclarations(types: [ActivityType(name: "ScoreAttributes")])
        var device = DeviceActivities()
        #expect(Self.start(&device, declarations: other).outcome == .dropped(.unknownAttributesType("DeliveryAttributes")))
        let none = ActivityDeclarations()
        #expect(Self.started(declarations: none).1.contentState == ["eta": 813000000])
    }

    @Test func attributesOrContentStateThatDoNotDecodeDropTheStart() {
        var device = DeviceActivities()
        let payload = try! JSONParser.parse(#"""
            {"aps": {"event": "start", "timestamp": 1760000000, "attributes-type": "DeliveryAttributes",
             "attributes": {"order": "A1"}, "content-state": {"driver": "Ann"}}}
            """#)
        let result = device.apply(
            payload: payload, to: .pushToStart(app: Self.app, typeName: "DeliveryAttributes"), priority: 10,
            declarations: Self.declarations, at: Self.t0, newActivity: NewActivityIdentity(id: "A", updateToken: "t"))
        #expect(result.outcome.description == "dropped: content-state has no `eta`")
        var attributes = payload
        if case .object(var root) = payload, case .object(var aps)? = root["aps"] {
            aps["attributes"] = ["order": 7]
            root["aps"] = .object(aps)
            attributes = .object(root)
        }
        let second = device.apply(
            payload: attributes, to: .pushToStart(app: Self.app, typeName: "DeliveryAttributes"), priority: 10,
            declarations: Self.declarations, at: Self.t0, newActivity: NewActivityIdentity(id: "A", updateToken: "t"))
        #expect(second.outcome.description == "dropped: attributes.order: expected a string, found a number")
        #expect(device.activities.isEmpty)
    }

    @Test func anAppMayRunFiveActivitiesAndHoldSixteen() {
        var device = DeviceActivities()
        func start(_ id: String, app: String = Self.app, at now: Date = Self.t0) -> ActivityOutcome {
            device.apply(
                payload: Self.payload("start", at: now), to: .pushToStart(app: app, typeName: "DeliveryAttributes"), priority: 10,
                declarations: Self.declarations, at: now, newActivity: NewActivityIdentity(id: id, updateToken: "t-\(id)")).outcome
        }
        for index in 0..<5 { _ = start("a\(index)") }
        #expect(start("a5") == .dropped(.tooManyActivities(app: Self.app, limit: 5)))
        #expect(start("b0", app: "com.example.other").isStarted, "the limit is per app")
        // Ended activities do not count against the five, only against the sixteen held.
        var now = Self.t0
        for round in 0..<4 {
            now += 60
            for activity in device.activities where activity.app == Self.app && activity.isLive {
                _ = device.apply(
                    payload: Self.payload("end", at: now), to: .activity(id: activity.id), priority: 5,
                    declarations: Self.declarations, at: now, newActivity: NewActivityIdentity(id: "", updateToken: ""))
            }
            for index in 0..<5 { #expect(start("r\(round)-\(index)", at: now).isStarted) }
        }
        #expect(device.activities.count { $0.app == Self.app } == 16)
        #expect(device.activity(id: "a0") == nil, "the oldest ended activities made room")
    }

    // MARK: Update and end

    @Test func anUpdateReplacesTheContentStateAndTimestamp() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 60, at: Self.t0 + 60, contentState: #"{"eta": 813000600, "driver": "Ann"}"#)
        guard case .updated(let activity) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(activity.contentState == ["eta": 813000600, "driver": "Ann"])
        #expect(activity.timestamp == Self.t0 + 60)
        #expect(device.activity(id: "A") == activity)
        #expect(result.lightsScreen == false, "no alert, nothing lights")
    }

    @Test(arguments: [-60.0, 0.0])
    func anUpdateOrEndNotNewerThanTheActivityIsIgnored(offset: TimeInterval) {
        for event in ["update", "end"] {
            var (device, before, _) = Self.started()
            let result = Self.send(&device, event, timestamp: Self.t0 + offset, at: Self.t0 + 60, extra: #", "alert": {"body": "x"}"#)
            #expect(result.outcome == .ignored(.timestampNotNewer(activityID: "A", last: Self.t0, received: Self.t0 + offset)))
            #expect(!result.lightsScreen)
            #expect(device.activity(id: "A")?.contentState == before.contentState)
            #expect(device.activity(id: "A")?.state == .active)
        }
    }

    @Test func aTimestampMoreThanEightHoursAheadIsIgnored() {
        var (device, _, _) = Self.started()
        let ahead = Self.t0 + 8 * Self.hour + 61
        #expect(Self.send(&device, "update", timestamp: ahead, at: Self.t0 + 60).outcome == .ignored(.timestampTooFarAhead(received: ahead, now: Self.t0 + 60)))
    }

    @Test func aContentStateThatDoesNotDecodeIsDroppedAndTheActivityKeepsItsContent() {
        var (device, before, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 60, at: Self.t0 + 60, extra: #", "alert": {"body": "x"}"#, contentState: #"{"driver": "Ann"}"#)
        #expect(result.outcome == .dropped(.contentStateDoesNotDecode(ActivityDecodingFailure(path: "aps.content-state.eta", problem: .missing))))
        #expect(result.outcome.description == "dropped: content-state has no `eta`")
        #expect(!result.lightsScreen)
        let after = device.activity(id: "A")
        #expect(after?.contentState == before.contentState)
        #expect(after?.timestamp == before.timestamp)
        #expect(after?.priority10Updates.count == 1, "it was delivered, so it spent budget")
    }

    @Test func aDateSentInSecondsSince1970IsAppliedWithANote() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 60, at: Self.t0 + 60, contentState: #"{"eta": \#(Self.unix(Self.t0) + 1800)}"#)
        #expect(result.outcome.isUpdated)
        #expect(result.notes.map(\.kind) == [.dateInUnixSeconds])
    }

    @Test func anUnknownActivityOrTheWrongTokenForTheEventIsIgnored() {
        var (device, _, _) = Self.started()
        let unknown = device.apply(
            payload: Self.payload("update", at: Self.t0 + 1), to: .activity(id: "B"), priority: 5, declarations: Self.declarations,
            at: Self.t0 + 1, newActivity: NewActivityIdentity(id: "", updateToken: ""))
        #expect(unknown.outcome == .ignored(.unknownActivity(id: "B")))
        #expect(Self.send(&device, "start", timestamp: Self.t0 + 1, at: Self.t0 + 1).outcome == .ignored(.wrongTokenForEvent(.start)))
        let update = device.apply(
            payload: Self.payload("update", at: Self.t0 + 1), to: .pushToStart(app: Self.app, typeName: "DeliveryAttributes"),
            priority: 5, declarations: Self.declarations, at: Self.t0 + 1, newActivity: NewActivityIdentity(id: "", updateToken: ""))
        #expect(update.outcome == .ignored(.wrongTokenForEvent(.update)))
    }

    @Test func anInvalidPayloadIsDroppedWithItsKeyPath() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 1, at: Self.t0 + 1, contentState: nil)
        #expect(result.outcome.description == "dropped: aps.content-state: is missing")
    }

    @Test func anAlertOnAnUpdateLightsTheScreen() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 1, at: Self.t0 + 1, extra: #", "alert": {"title": "Almost there", "sound": "default"}"#)
        #expect(result.lightsScreen)
        #expect(result.alert == ActivityAlert(title: .plain("Almost there"), sound: "default"))
    }

    @Test func anEndWithoutDismissalDateStaysFourHours() {
        var (device, _, _) = Self.started()
        let end = Self.t0 + Self.hour
        let result = Self.send(&device, "end", timestamp: end, at: end, contentState: nil)
        guard case .ended(let activity) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(activity.state == .ended)
        #expect(activity.contentState == ["eta": 813000000], "an end without content-state keeps the last")
        #expect(activity.dismissalDate == end + 4 * Self.hour)
        #expect(device.advance(to: end + 4 * Self.hour - 1).isEmpty)
        let changes = device.advance(to: end + 4 * Self.hour)
        #expect(changes.map(\.activity.state) == [.dismissed])
        #expect(changes.map(\.previousState) == [.ended])
        #expect(device.activities.isEmpty)
    }

    @Test func aPastDismissalDateRemovesTheActivityAtOnce() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "end", timestamp: Self.t0 + 60, at: Self.t0 + 60, extra: #", "dismissal-date": 1663177260"#)
        guard case .ended(let activity) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(activity.state == .dismissed)
        #expect(device.activities.isEmpty)
    }

    @Test func aFutureDismissalDateIsKeptWithinFourHours() {
        var (device, _, _) = Self.started()
        let end = Self.t0 + 60
        let soon = Self.send(&device, "end", timestamp: end, at: end, extra: #", "dismissal-date": \#(Self.unix(end) + 3600)"#)
        #expect(soon.endedActivity?.dismissalDate == end + Self.hour)
        var (other, _, _) = Self.started()
        let late = Self.send(&other, "end", timestamp: end, at: end, extra: #", "dismissal-date": \#(Self.unix(end) + 36000)"#)
        #expect(late.endedActivity?.dismissalDate == end + 4 * Self.hour)
    }

    @Test func anEndedActivityTakesNoMorePushes() {
        var (device, _, _) = Self.started()
        _ = Self.send(&device, "end", timestamp: Self.t0 + 60, at: Self.t0 + 60)
        #expect(Self.send(&device, "update", timestamp: Self.t0 + 120, at: Self.t0 + 120).outcome == .ignored(.alreadyEnded(activityID: "A")))
        #expect(Self.send(&device, "end", timestamp: Self.t0 + 120, at: Self.t0 + 120).outcome == .ignored(.alreadyEnded(activityID: "A")))
    }

    // MARK: Time

    @Test func anActivityGoesStaleAtItsStaleDateAndAnUpdateBringsItBack() {
        let stale = Self.t0 + 600
        var (device, _, _) = Self.started(extra: #", "stale-date": \#(Self.unix(stale))"#)
        #expect(device.advance(to: stale - 1).isEmpty)
        #expect(device.advance(to: stale).map(\.activity.state) == [.stale])
        let result = Self.send(&device, "update", timestamp: stale + 60, at: stale + 60)
        #expect(result.updatedActivity?.state == .active)
        #expect(result.updatedActivity?.staleDate == nil, "an update without stale-date clears it")
    }

    @Test func anActivityEndsAfterEightHoursAndLeavesFourHoursLater() {
        var (device, _, _) = Self.started()
        #expect(device.advance(to: Self.t0 + 8 * Self.hour - 1).isEmpty)
        let ended = device.advance(to: Self.t0 + 8 * Self.hour)
        #expect(ended.map(\.activity.state) == [.ended])
        #expect(ended.first?.activity.endedAt == Self.t0 + 8 * Self.hour)
        #expect(device.advance(to: Self.t0 + 12 * Self.hour).map(\.activity.state) == [.dismissed])
        #expect(device.activities.isEmpty)
    }

    @Test func aPushAfterTwelveHoursFindsNothing() {
        var (device, _, _) = Self.started()
        let late = Self.t0 + 12 * Self.hour
        let result = Self.send(&device, "update", timestamp: late, at: late)
        #expect(result.outcome == .ignored(.unknownActivity(id: "A")))
        #expect(result.changesBefore.map(\.activity.state) == [.dismissed])
    }

    @Test func aPersonDismissesAnActivity() {
        var (device, _, _) = Self.started()
        let change = device.dismiss(id: "A", at: Self.t0 + 60)
        #expect(change?.previousState == .active)
        #expect(change?.activity.state == .dismissed)
        #expect(change?.activity.endedAt == Self.t0 + 60)
        #expect(device.activities.isEmpty)
        #expect(device.dismiss(id: "A", at: Self.t0 + 60) == nil)
    }

    @Test func theLockScreenOrdersByRelevanceThenByStart() {
        var device = DeviceActivities()
        for (id, score) in [("low", 50), ("none", -1), ("high", 100), ("alsoLow", 50)] {
            let extra = score >= 0 ? #", "relevance-score": \#(score)"# : ""
            _ = device.apply(
                payload: Self.payload("start", at: Self.t0, extra: extra), to: .pushToStart(app: Self.app, typeName: "DeliveryAttributes"),
                priority: 10, declarations: Self.declarations, at: Self.t0, newActivity: NewActivityIdentity(id: id, updateToken: id))
        }
        #expect(device.lockScreenOrder.map(\.id) == ["high", "low", "alsoLow", "none"])
    }

    // MARK: Budget

    @Test func priorityTenUpdatesPastTheBudgetAreThrottledUntilTheWindowMoves() {
        var (device, _, _) = Self.started()
        var now = Self.t0
        for _ in 0..<10 {
            now += 60
            #expect(Self.send(&device, "update", timestamp: now, at: now).outcome.isUpdated)
        }
        now += 60
        let throttled = Self.send(&device, "update", timestamp: now, at: now, extra: #", "alert": {"body": "x"}"#)
        #expect(throttled.outcome == .throttled(activityID: "A", used: 10, limit: 10))
        #expect(!throttled.lightsScreen)
        #expect(Self.send(&device, "update", timestamp: now + 1, at: now + 1, priority: 5).outcome.isUpdated, "priority 5 draws on no budget")
        #expect(device.activity(id: "A")?.priority10UpdatesUsed(at: now + 1, window: Self.hour) == 10)
        // The first priority-10 update leaves the window one hour after it arrived.
        let later = Self.t0 + 60 + Self.hour
        #expect(Self.send(&device, "update", timestamp: later, at: later).outcome.isUpdated)
        #expect(Self.send(&device, "end", timestamp: later + 1, at: later + 1).outcome.isEnded, "an end is never throttled")
    }

    @Test func frequentUpdatesRaiseTheBudget() throws {
        var frequent = Self.declarations
        frequent.supportsFrequentUpdates = true
        var (device, _, _) = Self.started(declarations: frequent, configuration: .init(priority10UpdatesPerWindow: 2, frequentPriority10UpdatesPerWindow: 3))
        for step in 1...3 {
            let now = Self.t0 + TimeInterval(step)
            #expect(Self.send(&device, "update", timestamp: now, at: now, declarations: frequent).outcome.isUpdated)
        }
        #expect(Self.send(&device, "update", timestamp: Self.t0 + 4, at: Self.t0 + 4, declarations: frequent).outcome == .throttled(activityID: "A", used: 3, limit: 3))
    }

    // MARK: Bounds

    @Test func contentOverFourKilobytesIsDropped() {
        var (device, _, _) = Self.started()
        let result = Self.send(&device, "update", timestamp: Self.t0 + 1, at: Self.t0 + 1, contentState: #"{"eta": 1, "driver": "\#(String(repeating: "a", count: 4100))"}"#)
        guard case .dropped(.tooLarge(let bytes, 4096)) = result.outcome else { Issue.record("\(result.outcome)"); return }
        #expect(bytes > 4096)
    }

    @Test func declarationsAreBounded() throws {
        #expect { try ActivityType(name: "") } throws: { _ in true }
        #expect { try ActivityType(name: "T", template: String(repeating: "x", count: 8193)) } throws: { ($0 as? ActivityError)?.code == .tooLarge }
        let many = try (0...ActivityDeclarations.maximumTypes).map { try ActivityType(name: "T\($0)") }
        #expect { try ActivityDeclarations(types: many) } throws: { ($0 as? ActivityError)?.code == .tooLarge }
        #expect { try ActivityDeclarations(types: [ActivityType(name: "T"), ActivityType(name: "T")]) } throws: { _ in true }
        let type = try ActivityType(json: JSONReader(try JSONParser.parse(#"{"name": "T", "contentState": {"eta": "date"}, "template": "{{eta}}"}"#)))
        #expect(try ActivityType(json: JSONReader(type.json)) == type)
        #expect { try ActivityType(json: JSONReader(["name": "T", "colour": "red"])) } throws: { "\($0)".hasPrefix("colour: is not a known key") }
    }
}

extension ActivityOutcome {
    var description: String {
        switch self {
        case .started(let activity, _): "started \(activity.id)"
        case .updated(let activity): "updated \(activity.id)"
        case .ended(let activity): "ended \(activity.id)"
        case .ignored(let reason): "ignored: \(reason)"
        case .dropped(let reason): "dropped: \(reason)"
        case .throttled(let id, let used, let limit): "throttled \(id): \(used) of \(limit)"
        }
    }

    var isStarted: Bool { if case .started = self { true } else { false } }
    var isUpdated: Bool { if case .updated = self { true } else { false } }
    var isEnded: Bool { if case .ended = self { true } else { false } }
}

extension ActivityPushResult {
    var startedActivity: LiveActivity? { if case .started(let activity, _) = outcome { activity } else { nil } }
    var updatedActivity: LiveActivity? { if case .updated(let activity) = outcome { activity } else { nil } }
    var endedActivity: LiveActivity? { if case .ended(let activity) = outcome { activity } else { nil } }
}
