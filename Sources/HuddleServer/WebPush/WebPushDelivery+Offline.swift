import Foundation
import HuddleCore
import HuddleWebPush
import Logging
import NIOCore
import Synchronization

/// RFC 8030's store and forward: while a subscription's browser is offline, the push service keeps what it accepts
/// (a push with a `Topic` replacing a kept one of the same topic, §5.4; one with `TTL: 0` dropped, §5.2), and hands
/// it over when the browser is back, but for what outlived its TTL.
extension WebPushDelivery {
    /// What the push service did with a push for an offline browser.
    enum Holding {
        /// Kept, with what the inspector says of it.
        case kept(String)
        /// The browser came back meanwhile: the push is delivered as any other.
        case browserOnline
    }

    /// Keeps a push for the subscription's offline browser, in the app's transaction: two pushes at once are both kept,
    /// and one that meets the browser coming back is delivered instead.
    func hold(_ push: WebPushEndpoint.CheckedPush, messageID: String) async throws -> Holding {
        guard let session = try await centers.session(for: push.recipient.device.token) else { throw DeliveryRefusal.deviceGone }
        let now = clock()
        let pending = Self.pending(push, messageID: messageID, now: now)
        let id = push.recipient.subscription.id
        let note = Decided("")
        let app = try await session.updateApp(topic: push.recipient.app, maximumApps: maximumApps) { app in
            guard var app, var subscription = app.webPush, subscription.id == id else { throw DeliveryRefusal.unknownApp }
            // Decided here, in the transaction: unsubscribed meanwhile is gone, and back online meanwhile is delivered.
            guard subscription.isActive else { throw WebPushRefusal.subscriptionGone }
            guard !subscription.online else { return app }
            guard pending.ttl > 0 else {
                note.set("dropped: its TTL is 0 and the browser is offline (RFC 8030 §5.2)")
                return app
            }
            var notes = ["kept for the offline browser"]
            if let topic = pending.topic, let replaced = subscription.pending.firstIndex(where: { $0.topic == topic }) {
                notes.append("replacing the undelivered message \(subscription.pending[replaced].messageID) of Topic \(topic)")
                subscription.pending.remove(at: replaced)
            }
            subscription.pending.append(pending)
            if subscription.pending.count > WebPushSubscription.maximumPending {
                notes.append("dropping the oldest kept, \(subscription.pending.removeFirst().messageID)")
            }
            note.set(notes.joined(separator: ", "))
            app.webPush = subscription
            return app
        }
        return app.webPush?.online == true ? .browserOnline : .kept(note.value)
    }

    /// What bringing a browser back did with what was kept for it.
    struct Handover: Sendable {
        var delivered = 0
        var expired = 0
        /// Kept pushes that could not be handed over (the store failed, or a kept body no longer reads).
        var failed = 0
    }

    /// Brings a subscription's browser back online, handing over what was kept for it in order. The browser stays
    /// offline while it is handed over: each turn takes what is kept in the app's transaction (so two requests at once
    /// hand each push over once), delivers it, and the turn that finds nothing kept marks the browser online in the same
    /// transaction, so a push arriving meanwhile is kept and handed over after the older ones, never before. What
    /// outlived its TTL is recorded as expired; a push that fails is counted and the rest go on.
    /// - Throws: ``WebPushRefusal/subscriptionGone`` for a subscription ended before the hand-over began; one that ends
    ///   during it (Safari revoking a web app for what was handed over) ends the hand-over, answered with its counts.
    func comeOnline(_ recipient: WebPushRecipient, session: DeviceSession) async throws -> Handover {
        var handover = Handover()
        // Bounded: a sender that keeps pushing cannot keep the request here; past the last turn the browser is back,
        // and what comes after is delivered as it comes.
        for turn in 0..<Self.maximumHandoverTurns {
            let taken = Decided<[PendingWebPush]>([])
            let isLastTurn = turn == Self.maximumHandoverTurns - 1
            let app: AppRecord
            do {
                app = try await session.updateApp(topic: recipient.app, maximumApps: maximumApps) { app in
                    guard var app, var subscription = app.webPush, subscription.id == recipient.subscription.id else { throw DeliveryRefusal.unknownApp }
                    guard subscription.isActive else { throw WebPushRefusal.subscriptionGone }
                    taken.set(subscription.pending)
                    subscription.pending = []
                    if taken.value.isEmpty || isLastTurn { subscription.online = true }
                    app.webPush = subscription
                    return app
                }
            } catch WebPushRefusal.subscriptionGone where turn > 0 {
                // Ended while it was handed over (unsubscribed, or revoked by what was handed over): what was handed
                // over is answered, and nothing is left (an ended subscription keeps nothing).
                break
            }
            guard let subscription = app.webPush else { break }
            let current = WebPushRecipient(device: recipient.device, app: recipient.app, subscription: subscription)
            var ended = false
            for (index, kept) in taken.value.enumerated() {
                do {
                    if try await handOver(kept, to: current, session: session) { handover.delivered += 1 } else { handover.expired += 1 }
                } catch WebPushRefusal.subscriptionGone {
                    // Revoked by what was handed over: the rest cannot arrive, and are not tried one commit each.
                    handover.failed += taken.value.count - index
                    ended = true
                    break
                } catch {
                    Self.logger.error("a kept web push was not handed over", metadata: ["message": "\(kept.messageID)", "error": "\(error)"])
                    handover.failed += 1
                }
            }
            if ended || subscription.online { break }
        }
        return handover
    }

    private static let logger = Logger(label: "huddle.webpush")

    /// The most turns ``comeOnline(_:session:)`` takes to hand kept pushes over.
    static let maximumHandoverTurns = 20

    /// Delivers a kept push, or records that it expired; `true` when delivered.
    private func handOver(_ kept: PendingWebPush, to recipient: WebPushRecipient, session: DeviceSession) async throws -> Bool {
        let now = clock()
        if kept.hasExpired(at: now) {
            _ = try await session.store(StoredPush(
                app: recipient.app, pushType: "webpush", messageID: kept.messageID, priority: kept.urgency == "high" ? 10 : 5, date: now,
                deviceAction: "expired at the push service: the browser came online after its TTL of \(kept.ttl) s",
                request: NotificationRequest(identifier: kept.messageID, content: NotificationContent()), payload: { .null }))
            return false
        }
        guard let push = Self.checkedPush(kept, recipient: recipient) else { throw DecryptionFailure("a kept push no longer reads") }
        var details = JSONObject()
        _ = try await deliver(push, messageID: kept.messageID, details: &details)
        return true
    }

    static func pending(_ push: WebPushEndpoint.CheckedPush, messageID: String, now: Date) -> PendingWebPush {
        let (encoding, salt, senderKey): (String, Data?, Data?) = switch push.headers.coding {
        case .aes128gcm: ("aes128gcm", nil, nil)
        case .aesgcm(let salt, let senderKey): ("aesgcm", salt, senderKey)
        case .none: ("none", nil, nil)
        }
        return PendingWebPush(
            messageID: messageID, receivedAt: now, ttl: push.headers.ttl, urgency: push.headers.urgency?.rawValue, topic: push.headers.topic,
            encoding: encoding, salt: salt.map(Base64URL.encode), senderKey: senderKey.map(Base64URL.encode),
            body: Base64URL.encode(Data(push.body.readableBytesView)))
    }

    static func checkedPush(_ kept: PendingWebPush, recipient: WebPushRecipient) -> WebPushEndpoint.CheckedPush? {
        guard let service = WebPushService(rawValue: recipient.subscription.service), let body = Base64URL.decode(Substring(kept.body)) else { return nil }
        let coding: PushMessageHeaders.ContentCoding
        switch kept.encoding {
        case "aes128gcm": coding = .aes128gcm
        case "aesgcm":
            guard let salt = kept.salt.flatMap({ Base64URL.decode(Substring($0)) }), let key = kept.senderKey.flatMap({ Base64URL.decode(Substring($0)) })
            else { return nil }
            coding = .aesgcm(salt: salt, senderKey: key)
        default: coding = .none
        }
        let headers = PushMessageHeaders(
            ttl: kept.ttl, urgency: kept.urgency.flatMap(PushMessageHeaders.Urgency.init(rawValue:)), topic: kept.topic, coding: coding)
        return WebPushEndpoint.CheckedPush(recipient: recipient, service: service, headers: headers, body: ByteBuffer(bytes: body))
    }
}

/// What a store's update decided, read after its transaction: an update may run more than once (a retried
/// transaction), and the run that committed sets it last.
private final class Decided<Value: Sendable>: Sendable {
    private let state: Mutex<Value>

    init(_ value: Value) { state = Mutex(value) }

    func set(_ value: Value) { state.withLock { $0 = value } }

    var value: Value { state.withLock { $0 } }
}
