import HuddleCore
import HuddleWebPush

/// What the web apps page shows of a device (``WebController/webApps(_:context:)``): each web app's subscription as a
/// page would hold it, its state at the push service, and a form that subscribes another.
struct WebAppsPage {
    let device: DeviceRecord
    let apps: [AppRecord]
    /// The origin the endpoints are on, as the browser reached the server.
    let endpointOrigin: String

    var context: [String: Any] {
        let subscriptions: [[String: Any]] = apps.compactMap { app in
            guard let subscription = app.webPush else { return nil }
            let service = WebPushService(rawValue: subscription.service) ?? .apple
            let state = subscription.isActive
                ? (subscription.online ? "subscribed" : "subscribed, the browser offline")
                : "ended: \(subscription.endReason ?? "unsubscribed")"
            var entry: [String: Any] = [
                "id": subscription.id, "name": app.displayName ?? app.topic, "origin": subscription.origin,
                "location": subscription.location(device: device.token),
                "serviceLabel": service.label, "state": state, "active": subscription.isActive,
                "goesOnline": subscription.online ? "false" : "true", "onlineAction": subscription.online ? "Take the browser offline" : "Bring the browser online",
                "json": subscription.pageJSON(endpointOrigin: endpointOrigin).jsonText(pretty: true),
            ]
            // A section shows for any value but false and a missing key (0 included): counts of none are left out.
            if !subscription.pending.isEmpty { entry["pending"] = subscription.pending.count }
            if subscription.silentPushes > 0 { entry["silentPushes"] = subscription.silentPushes }
            return entry
        }
        let defaultService = WebPushService(rawValue: device.kind.defaultWebPushService)
        return [
            "token": device.token, "deviceName": device.name,
            "browser": defaultService?.browserDescription ?? "",
            "services": WebPushService.allCases.map { ["value": $0.rawValue, "label": $0.label, "selected": $0 == defaultService] },
            "subscriptions": subscriptions,
        ]
    }
}
