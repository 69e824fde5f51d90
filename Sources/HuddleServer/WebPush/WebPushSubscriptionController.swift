import Crypto
import Foundation
import HTTPTypes
import HuddleCore
import HuddleWebPush
import Hummingbird

/// A device's web push subscriptions, as a page's `PushManager.subscribe()` makes them (docs/web-push.md):
///
/// - `POST /v1/devices/{token}/web-push/subscriptions` with `{"origin", "applicationServerKey", "service"?, "name"?,
///   "serviceWorkerShowsNotifications"?}`: `201` and what `PushSubscription.toJSON()` gives the page, with a `Location`;
/// - `GET` of the same path: the device's subscriptions;
/// - `PATCH …/subscriptions/{id}` with `{"online": false}`: the browser goes offline, and the push service keeps what it
///   accepts until `{"online": true}` brings it back (RFC 8030's store and forward, ``WebPushDelivery/hold(_:messageID:)``);
/// - `DELETE …/subscriptions/{id}`: unsubscribes (pushes to it are answered 410 after).
///
/// The device's secret authorizes each. A web app is an app of the device whose topic comes from its origin
/// (``WebPushSubscription/appTopic(origin:)``), counted with its apps.
struct WebPushSubscriptionController {
    let centers: DeviceCenters
    let store: any NotificationStore
    let maximumApps: Int
    let delivery: WebPushDelivery
    let tls: Bool
    let clock: @Sendable () -> Date

    func addRoutes(to router: Router<HuddleRequestContext>) {
        let subscriptions = router.group("/v1/devices/:token/web-push/subscriptions")
        subscriptions.post(use: subscribe)
        subscriptions.get(use: list)
        subscriptions.patch(":id", use: update)
        subscriptions.delete(":id", use: unsubscribe)
    }

    @Sendable func subscribe(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let body = try await request.jsonBody(limit: 4096)
        try body.rejectUnknownMembers(["origin", "applicationServerKey", "service", "name", "serviceWorkerShowsNotifications"])
        let originMember = try body.member("origin")
        let origin = WebPushSubscription.canonicalOrigin(try originMember.string())
        guard let topic = WebPushSubscription.appTopic(origin: origin) else {
            throw originMember.failure("expected a web app's origin: https:// (or http://), a host and an optional port, nothing after")
        }
        let keyMember = try body.member("applicationServerKey")
        let keyText = try keyMember.string()
        guard keyText.utf8.count <= 100, let keyBytes = Base64URL.decode(Substring(keyText).prefix { $0 != "=" }), keyBytes.count == 65,
            keyBytes.first == 4, (try? P256.Signing.PublicKey(x963Representation: keyBytes)) != nil
        else {
            throw keyMember.failure("expected the application server's P-256 public key: 65 bytes, uncompressed, base64url (as VAPID's k)")
        }
        let serviceMember = try body.optionalMember("service")
        let serviceName = try serviceMember?.string() ?? device.kind.defaultWebPushService
        guard let service = WebPushService(rawValue: serviceName) else {
            throw (serviceMember ?? body).failure("expected the push service to imitate: apple, mozilla or fcm")
        }
        let name = try body.optionalMember("name")?.string()
        if let name { try DisplayText.checkName(name, field: "name") }
        let showsNotifications = try body.optionalMember("serviceWorkerShowsNotifications")?.bool() ?? true
        let key = Base64URL.encode(keyBytes)
        let keys = SubscriptionKeys.generate()
        let fresh = WebPushSubscription(
            id: WebPushSubscription.newID(), origin: origin, service: service.rawValue, applicationServerKey: key,
            privateKey: Base64URL.encode(keys.privateKeyBytes), authSecret: Base64URL.encode(keys.authSecret), createdAt: clock(),
            serviceWorkerShowsNotifications: showsNotifications)
        let kind = device.kind
        // Decided against the app as stored, in its transaction: two pages subscribing at once get one subscription.
        let app = try await session.updateApp(topic: topic, maximumApps: maximumApps) { current in
            if let current, let existing = current.webPush, existing.isActive {
                guard existing.applicationServerKey == key, existing.service == service.rawValue else {
                    throw APIError(
                        .conflict,
                        "the web app at \(origin) is subscribed with another applicationServerKey or service: unsubscribe first (DELETE its Location), as a page must")
                }
                return current
            }
            var app = current ?? AppRecord(topic: topic, displayName: name ?? WebPushDelivery.host(of: origin))
            if let name { app.displayName = name }
            if kind.webPushArrival == .chrome, !app.firebase.channels.contains(WebPushDelivery.chromeSiteChannel) {
                app.firebase.channels.append(WebPushDelivery.chromeSiteChannel)
            }
            app.webPush = fresh
            return app
        }
        guard let subscription = app.webPush else { throw StoreError(.corrupt, "the web app \(topic) was saved without its subscription") }
        let created = subscription.id == fresh.id
        var headers = HTTPFields()
        headers[.location] = subscription.location(device: device.token)
        return .json(
            subscription.pageJSON(endpointOrigin: WebPushEndpoint.origin(tls: tls, authority: request.head.authority)),
            status: created ? .created : .ok, headers: headers)
    }

    @Sendable func list(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, _) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let origin = WebPushEndpoint.origin(tls: tls, authority: request.head.authority)
        let subscriptions = try await store.apps(device: device.token).compactMap { app in
            app.webPush.map { subscription in
                var object = JSONObject([("id", .string(subscription.id)), ("app", .string(app.topic)), ("origin", .string(subscription.origin))])
                object["service"] = .string(subscription.service)
                object["subscription"] = subscription.pageJSON(endpointOrigin: origin)
                object["active"] = .bool(subscription.isActive)
                object["endReason"] = subscription.endReason.map(JSONValue.string)
                object["silentPushes"] = .integer(Int64(subscription.silentPushes))
                object["online"] = .bool(subscription.online)
                object["pending"] = .integer(Int64(subscription.pending.count))
                return JSONValue.object(object)
            }
        }
        return .json(.object(JSONObject([("subscriptions", .array(subscriptions))])))
    }

    @Sendable func update(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let id = try context.parameters.require("id")
        let body = try await request.jsonBody(limit: 1024)
        try body.rejectUnknownMembers(["online"])
        let online = try body.member("online").bool()
        guard let recipient = try await store.webPushRecipient(subscriptionID: id), recipient.device.token == device.token else {
            throw APIError(.notFound, "the device has no web push subscription \(id.prefix(64))")
        }
        var answer = JSONObject([("id", .string(id)), ("online", .bool(online))])
        let ended = APIError(.conflict, "the web push subscription \(id.prefix(64)) has ended; a page subscribes again for a new one")
        if online {
            let handover: WebPushDelivery.Handover
            do {
                handover = try await delivery.comeOnline(recipient, session: session)
            } catch WebPushRefusal.subscriptionGone {
                throw ended
            }
            answer["delivered"] = .integer(Int64(handover.delivered))
            answer["expired"] = .integer(Int64(handover.expired))
            answer["failed"] = .integer(Int64(handover.failed))
        } else {
            _ = try await session.updateApp(topic: recipient.app, maximumApps: maximumApps) { current in
                guard var app = current, var subscription = app.webPush, subscription.id == id else {
                    throw APIError(.notFound, "the device has no web push subscription \(id.prefix(64))")
                }
                guard subscription.isActive else { throw ended }
                subscription.online = false
                app.webPush = subscription
                return app
            }
        }
        return .json(.object(answer))
    }

    @Sendable func unsubscribe(_ request: Request, context: HuddleRequestContext) async throws -> Response {
        let (device, session) = try await DeviceAuthorization(store: store, centers: centers).authorize(request, context)
        let id = try context.parameters.require("id")
        guard let recipient = try await store.webPushRecipient(subscriptionID: id), recipient.device.token == device.token else {
            throw APIError(.notFound, "the device has no web push subscription \(id.prefix(64))")
        }
        let now = clock()
        _ = try await session.updateApp(topic: recipient.app, maximumApps: maximumApps) { current in
            guard var app = current, var subscription = app.webPush, subscription.id == id else {
                throw APIError(.notFound, "the device has no web push subscription \(id.prefix(64))")
            }
            if subscription.isActive {
                subscription.endedAt = now
                subscription.endReason = "unsubscribed"
            }
            // What the push service kept for the browser goes with the subscription.
            subscription.pending = []
            app.webPush = subscription
            return app
        }
        return Response(status: .noContent)
    }
}
