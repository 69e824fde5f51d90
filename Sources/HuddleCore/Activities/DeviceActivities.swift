public import Foundation

/// The Live Activities on one device, and the rules by which pushes and time change them
/// (docs/push-types.md §2 and §4).
///
/// A value with pure functions: every change takes the device's time as `now`, and a start is given the
/// identifier and update token to use, so that the same inputs always give the same activities. The
/// server keeps one per device and commits what these functions return.
public struct DeviceActivities: Sendable, Hashable {
    /// Limits and durations, each Apple's where Apple gives one (docs/push-types.md §4 says why for the
    /// others).
    public struct Configuration: Sendable, Hashable {
        /// Activities one app may have active or stale at once; a start past it is dropped. Apple gives
        /// no number; 5 is what push providers report.
        public var maximumLiveActivitiesPerApp: Int
        /// Activities one app may hold, ended ones included; past it the oldest ended one is removed
        /// first. Bounds memory, since ended activities linger four hours.
        public var maximumHeldActivitiesPerApp: Int
        /// Activities one device may hold, every app's and ended ones included: bounds what one device's
        /// activities weigh (each push reads and writes them whole, each change streams them whole).
        public var maximumHeldActivitiesPerDevice: Int
        /// Bytes of attributes and content state together, as compact JSON (Apple: 4 KB).
        public var maximumContentSize: Int
        /// How long an activity stays active before the system ends it (Apple: eight hours).
        public var activeLifetime: TimeInterval
        /// How long an ended activity stays on the Lock Screen at most (Apple: four hours).
        public var endedLifetime: TimeInterval
        /// Priority-10 updates an activity may take per ``budgetWindow`` (Apple documents a budget per
        /// hour, not its size).
        public var priority10UpdatesPerWindow: Int
        /// The same for an app that sets `NSSupportsLiveActivitiesFrequentUpdates`.
        public var frequentPriority10UpdatesPerWindow: Int
        public var budgetWindow: TimeInterval

        public init(
            maximumLiveActivitiesPerApp: Int = 5, maximumHeldActivitiesPerApp: Int = 16, maximumHeldActivitiesPerDevice: Int = 64,
            maximumContentSize: Int = 4096,
            activeLifetime: TimeInterval = 8 * 3600, endedLifetime: TimeInterval = 4 * 3600,
            priority10UpdatesPerWindow: Int = 10, frequentPriority10UpdatesPerWindow: Int = 60, budgetWindow: TimeInterval = 3600
        ) {
            self.maximumLiveActivitiesPerApp = maximumLiveActivitiesPerApp
            self.maximumHeldActivitiesPerApp = max(maximumHeldActivitiesPerApp, maximumLiveActivitiesPerApp)
            self.maximumHeldActivitiesPerDevice = maximumHeldActivitiesPerDevice
            self.maximumContentSize = maximumContentSize
            self.activeLifetime = activeLifetime
            self.endedLifetime = endedLifetime
            self.priority10UpdatesPerWindow = priority10UpdatesPerWindow
            self.frequentPriority10UpdatesPerWindow = frequentPriority10UpdatesPerWindow
            self.budgetWindow = budgetWindow
        }
    }

    /// The activities held, in the order they started.
    public private(set) var activities: [LiveActivity]
    public var configuration: Configuration

    public init(activities: [LiveActivity] = [], configuration: Configuration = Configuration()) {
        self.activities = activities
        self.configuration = configuration
    }

    public func activity(id: String) -> LiveActivity? {
        activities.first { $0.id == id }
    }

    public func activity(updateToken: String) -> LiveActivity? {
        activities.first { $0.updateToken == updateToken }
    }

    /// The order the Lock Screen shows them in: highest relevance score first, then the first started
    /// (Apple: equal or absent scores fall back to the first started).
    public var lockScreenOrder: [LiveActivity] {
        activities.enumerated()
            .sorted { ($0.element.relevanceScore, -$0.offset) > ($1.element.relevanceScore, -$1.offset) }
            .map(\.element)
    }

    // MARK: Time

    /// Moves the clock to `now`: activities past their stale date go stale, those active for
    /// ``Configuration/activeLifetime`` end, and ended ones past their dismissal date leave.
    /// - Returns: one change per activity that changed, its state before and after.
    public mutating func advance(to now: Date) -> [ActivityChange] {
        var changes: [ActivityChange] = []
        var kept: [LiveActivity] = []
        for var activity in activities {
            let before = activity.state
            if activity.isLive, now >= activity.startedAt + configuration.activeLifetime {
                end(&activity, at: activity.startedAt + configuration.activeLifetime, dismissalDate: nil)
            }
            if activity.state == .active, let stale = activity.staleDate, now >= stale {
                activity.state = .stale
            }
            if activity.state == .ended, let removal = activity.dismissalDate, now >= removal {
                activity.state = .dismissed
            }
            if activity.state != before { changes.append(ActivityChange(activity: activity, previousState: before)) }
            if activity.state != .dismissed { kept.append(activity) }
        }
        activities = kept
        return changes
    }

    /// A person removes the activity from the Lock Screen: it ends, if it had not, and leaves at once.
    /// - Returns: the change, or nil for an unknown id.
    public mutating func dismiss(id: String, at now: Date) -> ActivityChange? {
        guard let index = activities.firstIndex(where: { $0.id == id }) else { return nil }
        var activity = activities.remove(at: index)
        let before = activity.state
        if activity.endedAt == nil { activity.endedAt = now }
        activity.state = .dismissed
        return ActivityChange(activity: activity, previousState: before)
    }

    // MARK: Pushes

    /// Decodes a `liveactivity` payload and applies it; a payload that does not decode is dropped with
    /// the key path of its first problem, as iOS drops it.
    public mutating func apply(
        payload: JSONValue, to target: ActivityPushTarget, priority: Int, declarations: ActivityDeclarations, at now: Date,
        newActivity: NewActivityIdentity
    ) -> ActivityPushResult {
        let changes = advance(to: now)
        do {
            let push = try ActivityPush.decode(payload)
            var result = apply(push, to: target, priority: priority, declarations: declarations, at: now, newActivity: newActivity)
            result.changesBefore = changes + result.changesBefore
            return result
        } catch {
            return ActivityPushResult(outcome: .dropped(.invalidPayload(error)), changesBefore: changes)
        }
    }

    /// Applies a decoded push as iOS would.
    /// - Parameters:
    ///   - target: what the device token resolved to.
    ///   - priority: the request's `apns-priority` (10 when absent); 10 draws on the activity's budget.
    ///   - declarations: the app's activity types; types without declared keys accept any object.
    ///   - now: the device's clock; the activities are first advanced to it.
    ///   - newActivity: the id and update token a start gives the new activity.
    public mutating func apply(
        _ push: ActivityPush, to target: ActivityPushTarget, priority: Int, declarations: ActivityDeclarations, at now: Date,
        newActivity: NewActivityIdentity
    ) -> ActivityPushResult {
        let changes = advance(to: now)
        var notes = push.notes
        var result = ActivityPushResult(outcome: .ignored(.unknownActivity(id: "")), changesBefore: changes)
        // Apple's forum: a timestamp beyond an activity's longest life ahead is dropped.
        if push.timestamp > now + configuration.activeLifetime {
            result.outcome = .ignored(.timestampTooFarAhead(received: push.timestamp, now: now))
        } else {
            switch target {
            case .pushToStart(let app, let typeName):
                result.outcome = start(push, app: app, typeName: typeName, declarations: declarations, at: now, newActivity: newActivity, notes: &notes)
            case .activity(let id):
                result.outcome = change(id: id, with: push, priority: priority, declarations: declarations, at: now, notes: &notes)
            }
        }
        switch result.outcome {
        case .started, .updated, .ended: result.alert = push.alert
        case .ignored, .dropped, .throttled: break
        }
        result.notes = notes
        return result
    }

    private mutating func start(
        _ push: ActivityPush, app: String, typeName: String, declarations: ActivityDeclarations, at now: Date,
        newActivity: NewActivityIdentity, notes: inout [ActivityNote]
    ) -> ActivityOutcome {
        guard push.event == .start else { return .ignored(.wrongTokenForEvent(push.event)) }
        let payloadType = push.attributesType ?? ""
        guard payloadType == typeName else {
            return .dropped(.attributesTypeDoesNotMatchToken(payload: payloadType, token: typeName))
        }
        let type = declarations.type(named: typeName)
        if type == nil, !declarations.types.isEmpty { return .dropped(.unknownAttributesType(typeName)) }
        let attributes = push.attributes ?? .object(JSONObject())
        let contentState = push.contentState ?? .object(JSONObject())
        if let failure = type?.attributes?.check(attributes, at: "aps.attributes", now: now, notes: &notes) {
            return .dropped(.attributesDoNotDecode(failure))
        }
        if let failure = type?.contentState?.check(contentState, at: "aps.content-state", now: now, notes: &notes) {
            return .dropped(.contentStateDoesNotDecode(failure))
        }
        if let tooLarge = sizeProblem(attributes: attributes, contentState: contentState) { return .dropped(tooLarge) }
        let live = activities.count { $0.app == app && $0.isLive }
        guard live < configuration.maximumLiveActivitiesPerApp else {
            return .dropped(.tooManyActivities(app: app, limit: configuration.maximumLiveActivitiesPerApp))
        }
        // Room is made on a copy: a start that is dropped after all removes nothing.
        var held = activities
        // Live ones are counted above, so one of the app's ended activities is there to remove.
        if held.count(where: { $0.app == app }) >= configuration.maximumHeldActivitiesPerApp { Self.removeOldestEnded(from: &held) { $0.app == app } }
        if held.count >= configuration.maximumHeldActivitiesPerDevice { Self.removeOldestEnded(from: &held) { _ in true } }
        guard held.count < configuration.maximumHeldActivitiesPerDevice else {
            return .dropped(.tooManyActivitiesOnDevice(limit: configuration.maximumHeldActivitiesPerDevice))
        }
        activities = held
        var activity = LiveActivity(
            id: newActivity.id, app: app, typeName: typeName, attributes: attributes, contentState: contentState,
            timestamp: push.timestamp, startedAt: now, staleDate: push.staleDate, relevanceScore: push.relevanceScore ?? 0,
            updateToken: push.inputPushChannel == nil ? newActivity.updateToken : nil, channelID: push.inputPushChannel)
        if let stale = activity.staleDate, now >= stale { activity.state = .stale }
        activities.append(activity)
        return .started(activity, reportedUpdateToken: push.inputPushToken ? activity.updateToken : nil)
    }

    private mutating func change(
        id: String, with push: ActivityPush, priority: Int, declarations: ActivityDeclarations, at now: Date,
        notes: inout [ActivityNote]
    ) -> ActivityOutcome {
        guard let index = activities.firstIndex(where: { $0.id == id }) else { return .ignored(.unknownActivity(id: id)) }
        guard push.event != .start else { return .ignored(.wrongTokenForEvent(.start)) }
        var activity = activities[index]
        guard activity.isLive else { return .ignored(.alreadyEnded(activityID: id)) }
        // The budget is spent on delivery, before the device looks at the payload; an end always passes.
        if push.event == .update, priority >= 10 {
            let limit = declarations.supportsFrequentUpdates
                ? configuration.frequentPriority10UpdatesPerWindow : configuration.priority10UpdatesPerWindow
            activity.priority10Updates.removeAll { now.timeIntervalSince($0) >= configuration.budgetWindow }
            guard activity.priority10Updates.count < limit else {
                activities[index] = activity
                return .throttled(activityID: id, used: activity.priority10Updates.count, limit: limit)
            }
            activity.priority10Updates.append(now)
            activities[index] = activity
        }
        guard push.timestamp > activity.timestamp else {
            return .ignored(.timestampNotNewer(activityID: id, last: activity.timestamp, received: push.timestamp))
        }
        let schema = declarations.type(named: activity.typeName)?.contentState
        if let contentState = push.contentState {
            if let failure = schema?.check(contentState, at: "aps.content-state", now: now, notes: &notes) {
                return .dropped(.contentStateDoesNotDecode(failure))
            }
            if let tooLarge = sizeProblem(attributes: activity.attributes, contentState: contentState) { return .dropped(tooLarge) }
            activity.contentState = contentState
        }
        activity.timestamp = push.timestamp
        // Each push carries a whole ActivityContent: what it leaves out goes back to ActivityKit's default.
        activity.staleDate = push.staleDate
        activity.relevanceScore = push.relevanceScore ?? 0
        switch push.event {
        case .update:
            activity.state = activity.staleDate.map { now >= $0 } == true ? .stale : .active
            activities[index] = activity
            return .updated(activity)
        case .end, .start:
            end(&activity, at: now, dismissalDate: push.dismissalDate)
            if let removal = activity.dismissalDate, now >= removal {
                activity.state = .dismissed
                activities.remove(at: index)
            } else {
                activities[index] = activity
            }
            return .ended(activity)
        }
    }

    /// Ends an activity at `date`; it leaves the Lock Screen at `dismissalDate`, or four hours after the
    /// end, whichever comes first.
    private func end(_ activity: inout LiveActivity, at date: Date, dismissalDate: Date?) {
        let latest = date + configuration.endedLifetime
        activity.state = .ended
        activity.endedAt = date
        activity.dismissalDate = min(dismissalDate ?? latest, latest)
    }

    private func sizeProblem(attributes: JSONValue, contentState: JSONValue) -> ActivityDroppedReason? {
        let bytes = attributes.jsonUTF8().count + contentState.jsonUTF8().count
        return bytes > configuration.maximumContentSize ? .tooLarge(bytes: bytes, limit: configuration.maximumContentSize) : nil
    }

    /// Removes the ended activity that ended first among those `included` picks, if there is one.
    private static func removeOldestEnded(from activities: inout [LiveActivity], where included: (LiveActivity) -> Bool) {
        let ended = activities.indices.filter { activities[$0].state == .ended && included(activities[$0]) }
        if let oldest = ended.min(by: { (activities[$0].endedAt ?? .distantPast) < (activities[$1].endedAt ?? .distantPast) }) {
            activities.remove(at: oldest)
        }
    }
}
