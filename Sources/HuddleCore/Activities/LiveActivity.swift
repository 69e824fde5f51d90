public import Foundation

/// One Live Activity on a device: what its lock screen presentation shows, and what the rules need to
/// decide the next push (its last timestamp, its dates, its priority-10 budget).
public struct LiveActivity: Sendable, Hashable, Identifiable {
    /// ActivityKit's `ActivityState`, without `pending` (scheduled starts are not modelled).
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Visible and taking updates.
        case active
        /// Its stale date passed without an update moving it on; still takes updates.
        case stale
        /// Ended by a push, the app or the eight-hour limit; visible until removed, takes no updates.
        case ended
        /// Removed from the Lock Screen; held by no one afterwards.
        case dismissed
    }

    public let id: String
    /// The bundle identifier.
    public let app: String
    /// The `ActivityAttributes` type's name.
    public let typeName: String
    /// The static data, set once at the start.
    public let attributes: JSONValue
    /// The latest content state, replaced whole by each update.
    public var contentState: JSONValue
    /// The latest `timestamp` applied: an update must be newer.
    public var timestamp: Date
    /// When the device started it: the eight-hour limit counts from here.
    public let startedAt: Date
    public var staleDate: Date?
    /// When it ended, if it has.
    public var endedAt: Date?
    /// When an ended activity leaves the Lock Screen: the `dismissal-date`, capped at four hours after the
    /// end.
    public var dismissalDate: Date?
    /// Relative order among the app's activities, highest first; 0 as in ActivityKit when not given.
    public var relevanceScore: Double
    public var state: State
    /// The token its updates are sent to; nil for an activity on a broadcast channel.
    public let updateToken: String?
    /// The broadcast channel it listens on (`input-push-channel`), for later broadcast work.
    public let channelID: String?
    /// When its priority-10 updates of the current budget window arrived, oldest first; never longer than
    /// the budget.
    public var priority10Updates: [Date]

    public init(
        id: String, app: String, typeName: String, attributes: JSONValue, contentState: JSONValue, timestamp: Date,
        startedAt: Date, staleDate: Date? = nil, endedAt: Date? = nil, dismissalDate: Date? = nil, relevanceScore: Double = 0,
        state: State = .active, updateToken: String? = nil, channelID: String? = nil, priority10Updates: [Date] = []
    ) {
        self.id = id
        self.app = app
        self.typeName = typeName
        self.attributes = attributes
        self.contentState = contentState
        self.timestamp = timestamp
        self.startedAt = startedAt
        self.staleDate = staleDate
        self.endedAt = endedAt
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.state = state
        self.updateToken = updateToken
        self.channelID = channelID
        self.priority10Updates = priority10Updates
    }

    /// True while it takes updates (active or stale).
    public var isLive: Bool { state == .active || state == .stale }

    /// How many priority-10 updates it has used in the window ending at `now`.
    public func priority10UpdatesUsed(at now: Date, window: TimeInterval) -> Int {
        priority10Updates.count { now.timeIntervalSince($0) < window }
    }
}

/// A change the passing of time or a person made to an activity: it went stale, ended by itself, or left
/// the Lock Screen.
public struct ActivityChange: Sendable, Hashable {
    /// The activity after the change; a dismissed one is no longer held.
    public var activity: LiveActivity
    public var previousState: LiveActivity.State

    public init(activity: LiveActivity, previousState: LiveActivity.State) {
        self.activity = activity
        self.previousState = previousState
    }
}
