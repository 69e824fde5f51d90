public import HuddleCore
import Foundation

extension WebPushSubscription {
    /// What `PushSubscription.toJSON()` gives a page: its endpoint on `endpointOrigin`, no expiration time (Safari,
    /// Chrome and Firefox give none), and the browser's public key and auth secret.
    public func pageJSON(endpointOrigin: String) -> JSONValue {
        let service = WebPushService(rawValue: service) ?? .apple
        let publicKey = Base64URL.decode(Substring(privateKey)).flatMap { SubscriptionKeys(privateKeyBytes: $0, authSecret: Data(count: 16)) }?.publicKey
        return .object(JSONObject([
            ("endpoint", .string(endpointOrigin + service.endpointPath(subscriptionID: id))), ("expirationTime", .null),
            ("keys", .object(JSONObject([("p256dh", .string(publicKey.map(Base64URL.encode) ?? "")), ("auth", .string(authSecret))]))),
        ]))
    }

    /// Where the device API keeps it (the `Location` a subscribe answers): `PATCH` takes the browser online or
    /// offline, `DELETE` unsubscribes.
    public func location(device token: String) -> String {
        "/v1/devices/\(token)/web-push/subscriptions/\(id)"
    }
}
