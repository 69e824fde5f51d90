import Foundation
import HuddleAPNs
import HuddleCore
import Logging

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

extension StoredPush {
    /// Why APNs would refuse a push that a sender makes for an iPhone on its client's behalf (FCM, Expo).
    enum APNsRefusal: Error {
        /// A header breaks APNs' rules (``ProviderRequestCheck``).
        case headers(APNsReason)
        /// The payload is one APNs refuses (too large, malformed).
        case payload(any Error)
    }

    /// The push APNs delivers for a payload and headers a sender made, held to the provider endpoint's own checks: the
    /// topic is the app's with the push type's suffix, as such senders set it.
    static func apns(
        payload payloadJSON: JSONValue, headers: [String: String], pushType sentType: PushType, app: String, messageID: String, now: Date
    ) throws(APNsRefusal) -> StoredPush {
        let fields: ProviderRequestCheck.HeaderFields
        do {
            fields = try ProviderRequestCheck.headerFields(
                topic: app + (sentType.topicSuffix ?? ""), collapseID: headers["apns-collapse-id"], priority: headers["apns-priority"],
                pushType: sentType.rawValue, expiration: headers["apns-expiration"])
        } catch {
            throw .headers(error)
        }
        let pushType = fields.pushType
        let payload: APNsPayload
        do {
            payload = try APNsPayload.decode(payloadJSON.jsonUTF8(), maximumSize: pushType.maximumPayloadSize)
        } catch {
            throw .payload(error)
        }
        return StoredPush(
            app: app, pushType: pushType.rawValue, messageID: messageID, priority: fields.priority, date: now,
            deviceAction: pushType.deviceAction(for: payload),
            request: NotificationRequest(identifier: fields.collapseID ?? messageID, content: payload.content),
            payload: { payloadJSON })
    }
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
    /// - Parameter receipt: the receipt of the push's message, stored in the push's own commit (or on its own, for a
    ///   push the device keeps nothing of).
    func store(_ push: StoredPush, receipt: DeliveryReceipt? = nil) async throws -> StoredPushOutcome {
        if let action = push.deviceAction {
            // Nothing to show: what the device did with it is recorded instead, never dropped.
            try await record(
                DeviceEvent(
                    app: push.app, pushType: push.pushType, messageID: push.messageID, date: push.date, priority: push.priority, action: action,
                    payload: push.payload()), receipt: receipt)
            return .event(action: action)
        }
        guard let change = try await deliver(push.request, app: push.app, at: push.date, receipt: receipt) else {
            // Nothing visible, so nothing stored: the receipt alone says it arrived.
            if let receipt { try await save(receipt) }
            return .delivered(identifier: push.request.identifier, arrival: nil)
        }
        guard case .delivered(let notification) = change.kind, notification.mark != .shown,
            let note = settings.note(for: notification.mark, arrivedAt: push.date)
        else { return .delivered(identifier: push.request.identifier, arrival: nil) }
        // What the settings did is an event of the device too, as its page and API list them. It follows the
        // delivery's commit: a crash between them loses the note, never the notification. The push is stored, so a
        // note that cannot be recorded is logged, not answered: a sender told otherwise would send the push again (and
        // an Expo ticket would contradict its committed receipt).
        do {
            try await record(DeviceEvent(
                app: push.app, pushType: push.pushType, messageID: push.messageID, date: push.date, priority: push.priority, action: note,
                payload: push.payload()))
        } catch {
            logger.error("device \(device.token): push \(push.messageID) stored, its note (\(note)) not recorded: \(error)")
        }
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
