public import Foundation

/// Where a Live Activity push is addressed, as the server resolves its device token.
public enum ActivityPushTarget: Sendable, Hashable {
    /// A push-to-start token: one per app and activity type.
    case pushToStart(app: String, typeName: String)
    /// An activity's update token.
    case activity(id: String)
}

/// What a start would name the new activity: chosen by the caller so that the rules stay pure.
public struct NewActivityIdentity: Sendable, Hashable {
    public var id: String
    public var updateToken: String

    public init(id: String, updateToken: String) {
        self.id = id
        self.updateToken = updateToken
    }
}

/// What a Live Activity push did on the device.
public enum ActivityOutcome: Sendable, Hashable {
    /// A new activity; `reportedUpdateToken` is what the app would send its server (`input-push-token: 1`).
    case started(LiveActivity, reportedUpdateToken: String?)
    case updated(LiveActivity)
    /// Ended; its state is `dismissed` when a past `dismissal-date` removed it at once.
    case ended(LiveActivity)
    /// Delivered and not applied, as iOS ignores it.
    case ignored(ActivityIgnoredReason)
    /// Delivered and thrown away, because it cannot be applied.
    case dropped(ActivityDroppedReason)
    /// Past the priority-10 budget of the activity: not applied.
    case throttled(activityID: String, used: Int, limit: Int)
}

/// Why a push was ignored.
public enum ActivityIgnoredReason: Sendable, Hashable, CustomStringConvertible {
    /// An update or end whose `timestamp` is not newer than the activity's.
    case timestampNotNewer(activityID: String, last: Date, received: Date)
    /// A `timestamp` more than the longest an activity lives ahead of the device's clock.
    case timestampTooFarAhead(received: Date, now: Date)
    /// The update token names no activity held on the device (never started, or removed).
    case unknownActivity(id: String)
    /// The activity ended: it takes no more pushes.
    case alreadyEnded(activityID: String)
    /// `start` sent to an activity's update token, or `update`/`end` to a push-to-start token.
    case wrongTokenForEvent(ActivityPush.Event)

    public var description: String {
        switch self {
        case .timestampNotNewer(_, let last, let received):
            "timestamp \(Self.seconds(received)) is not newer than the activity's \(Self.seconds(last))"
        case .timestampTooFarAhead(let received, let now):
            "timestamp \(Self.seconds(received)) is more than eight hours after the device's clock (\(Self.seconds(now)))"
        case .unknownActivity: "no activity on the device has this update token"
        case .alreadyEnded: "the activity has ended and takes no more pushes"
        case .wrongTokenForEvent(.start): "start goes to a push-to-start token, not to an activity's update token"
        case .wrongTokenForEvent(let event): "\(event.rawValue) goes to an activity's update token; a push-to-start token only starts activities"
        }
    }

    private static func seconds(_ date: Date) -> String {
        String(Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}

/// Why a push was dropped.
public enum ActivityDroppedReason: Sendable, Hashable, CustomStringConvertible {
    /// The `aps` itself is wrong: a missing `event` or `timestamp`, a key of the wrong type.
    case invalidPayload(ActivityError)
    case contentStateDoesNotDecode(ActivityDecodingFailure)
    case attributesDoNotDecode(ActivityDecodingFailure)
    /// `attributes-type` names a type the app did not declare.
    case unknownAttributesType(String)
    /// `attributes-type` is not the type the push-to-start token was made for.
    case attributesTypeDoesNotMatchToken(payload: String, token: String)
    /// The app already shows as many activities as a device lets it.
    case tooManyActivities(app: String, limit: Int)
    /// The device holds as many live activities, of all its apps, as it may.
    case tooManyActivitiesOnDevice(limit: Int)
    /// Attributes and content state together exceed what an activity may hold.
    case tooLarge(bytes: Int, limit: Int)

    public var description: String {
        switch self {
        case .invalidPayload(let error): "\(error)"
        case .contentStateDoesNotDecode(let failure), .attributesDoNotDecode(let failure): "\(failure)"
        case .unknownAttributesType(let name): "the app declares no activity type named \(name)"
        case .attributesTypeDoesNotMatchToken(let payload, let token): "attributes-type \(payload) is not \(token), the type this push-to-start token starts"
        case .tooManyActivities(let app, let limit): "\(app) already has \(limit) activities running, as many as the device allows"
        case .tooManyActivitiesOnDevice(let limit): "the device already holds \(limit) activities of its apps, as many as Huddle keeps for one device"
        case .tooLarge(let bytes, let limit): "attributes and content state are \(bytes) bytes, more than the \(limit) an activity may hold"
        }
    }
}

/// A push's outcome, with what the person sees of it and what its sender likely got wrong.
public struct ActivityPushResult: Sendable, Hashable {
    public var outcome: ActivityOutcome
    /// The alert that lit the screen, on an applied start, update or end; never a notification in the
    /// center.
    public var alert: ActivityAlert?
    public var notes: [ActivityNote]
    /// Changes the clock made before the push was applied (an activity going stale or ending by itself).
    public var changesBefore: [ActivityChange]

    public init(outcome: ActivityOutcome, alert: ActivityAlert? = nil, notes: [ActivityNote] = [], changesBefore: [ActivityChange] = []) {
        self.outcome = outcome
        self.alert = alert
        self.notes = notes
        self.changesBefore = changesBefore
    }

    /// True when the push lit the screen as a notification would.
    public var lightsScreen: Bool { alert != nil }
}

extension ActivityPushResult {
    /// What the device did, in a sentence: the device's event says it, and `huddle preview` prints it.
    public var summary: String {
        var text: String
        switch outcome {
        case .started(let activity, let reported):
            text = "started Live Activity \(activity.id) (\(activity.typeName))"
            if let reported { text += "; the app reports its update token \(reported)" }
        case .updated(let activity):
            text = "updated Live Activity \(activity.id)" + (activity.state == .stale ? ", which is stale (its stale-date has passed)" : "")
        case .ended(let activity):
            if activity.state == .dismissed {
                text = "ended Live Activity \(activity.id) and removed it at once (its dismissal-date has passed)"
            } else {
                text = "ended Live Activity \(activity.id); it stays on the Lock Screen until \(activity.dismissalDate.map(ISO8601.string(from:)) ?? "removed")"
            }
        case .ignored(let reason):
            text = "ignored: \(reason)"
        case .dropped(let reason):
            text = "dropped: \(reason)"
        case .throttled(_, let used, let limit):
            text = "throttled: the activity used \(used) of its \(limit) priority-10 updates this hour; "
                + "send apns-priority 5, or declare NSSupportsLiveActivitiesFrequentUpdates"
        }
        if let alert {
            let words = [alert.title, alert.body].compactMap { $0?.fallbackText }.joined(separator: ": ")
            text += "; its alert lit the screen" + (words.isEmpty ? "" : " (\(words))")
        }
        for note in notes { text += "; note: \(note)" }
        return text
    }
}
