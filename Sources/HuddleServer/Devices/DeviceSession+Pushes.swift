import Foundation
import HuddleAPNs
import HuddleCore

/// A push as a device's session stores it, whichever API carried it (APNs' provider API, FCM's `messages:send`).
struct StoredPush {
    var app: String
    /// The push type as sent (`alert` when none was), which the device's event names.
    var pushType: String
    /// The id the sender knows it by (`apns-id`, FCM's message id).
    var messageID: String
    var priority: Int
    var date: Date
    /// What the device did instead of showing it, for a push that shows nothing; `nil` for one that shows.
    var deviceAction: String?
    /// The notification it shows (its identifier replaces an earlier one's).
    var request: NotificationRequest
    /// The payload as the app receives it, read only when an event keeps it.
    var payload: () -> JSONValue
}

/// What storing a push did.
enum StoredPushOutcome {
    /// It showed nothing; the device's event says what it did.
    case event(action: String)
    /// It is in the center (or held, or silenced: `arrival` says so when the person's settings did something).
    case delivered(identifier: String, arrival: String?)
}

extension DeviceSession {
    /// Stores a push: a device event for one that shows nothing, else the notification, with an event saying what the
    /// person's settings did to it when they did something (held for the summary, silenced by a Focus).
    func store(_ push: StoredPush) async throws -> StoredPushOutcome {
        if let action = push.deviceAction {
            // Nothing to show: what the device did with it is recorded instead, never dropped.
            try await record(DeviceEvent(
                app: push.app, pushType: push.pushType, messageID: push.messageID, date: push.date, priority: push.priority, action: action,
                payload: push.payload()))
            return .event(action: action)
        }
        let change = try await deliver(push.request, app: push.app, at: push.date)
        guard case .delivered(let notification)? = change?.kind, notification.mark != .shown,
            let note = settings.note(for: notification.mark, arrivedAt: push.date)
        else { return .delivered(identifier: push.request.identifier, arrival: nil) }
        // What the settings did is an event of the device too, as its page and API list them. It follows the
        // delivery's commit: a crash between them loses the note, never the notification.
        try await record(DeviceEvent(
            app: push.app, pushType: push.pushType, messageID: push.messageID, date: push.date, priority: push.priority, action: note,
            payload: push.payload()))
        return .delivered(identifier: push.request.identifier, arrival: note)
    }
}

extension SenderRequestRecord {
    /// What the request inspector shows of a stored push: the event the device recorded, or the notification's
    /// identifier and what the person's settings did to it.
    mutating func note(_ outcome: StoredPushOutcome) {
        switch outcome {
        case .event(let action):
            eventAction = action
        case .delivered(let identifier, let arrival):
            storedIdentifier = identifier
            self.arrival = arrival
        }
    }
}
