/// The push service a subscription imitates: each browser's own, which differ in their endpoint's shape, their checks
/// and the words of their refusals (docs/web-push.md).
public enum WebPushService: String, Sendable, Hashable, CaseIterable {
    /// Apple's (`web.push.apple.com`): Safari and web apps on an iPhone's Home Screen. Refusals are `{"reason": …}`.
    case apple
    /// Mozilla's autopush (`updates.push.services.mozilla.com`): Firefox. Refusals are `{code, errno, error, message,
    /// more_info}`.
    case mozilla
    /// Google's (`fcm.googleapis.com`): Chrome, on Android too. Refusals are plain text.
    case fcm

    /// The path of a subscription's endpoint on Huddle's origin, shaped after the service's own
    /// (`web.push.apple.com/<id>`, `…/wpush/v2/<id>`, `fcm.googleapis.com/wp/<id>`).
    public func endpointPath(subscriptionID: String) -> String {
        switch self {
        case .apple: "/web-push/apple/\(subscriptionID)"
        case .mozilla: "/web-push/mozilla/wpush/v2/\(subscriptionID)"
        case .fcm: "/web-push/fcm/wp/\(subscriptionID)"
        }
    }

    /// The service and subscription ID a request's path names, or `nil` for a path that is no endpoint's.
    public static func endpoint(ofPath path: Substring) -> (service: WebPushService, subscriptionID: Substring)? {
        let prefixes: [(WebPushService, String)] = [
            (.apple, "/web-push/apple/"), (.mozilla, "/web-push/mozilla/wpush/v2/"), (.fcm, "/web-push/fcm/wp/"),
        ]
        for (service, prefix) in prefixes where path.utf8.starts(with: prefix.utf8) {
            let id = path.dropFirst(prefix.utf8.count)
            return (service, id)
        }
        return nil
    }

    /// Whether a path begins as an endpoint's does (every path under `/web-push/` is the push service's to answer).
    public static func isServicePath(_ path: Substring) -> Bool {
        path.utf8.starts(with: "/web-push/".utf8)
    }

    /// The largest body the service takes: RFC 8030's floor, which every service meets (Mozilla's live limit is not
    /// published; the floor never accepts what a real one refuses).
    public static let maximumBodySize = 4096

    /// Whether the service takes the legacy forms: `Content-Encoding: aesgcm` and `Authorization: WebPush <JWT>` with
    /// `Crypto-Key: p256ecdsa=`. Mozilla's code reads both; FCM's errors name them; Apple documents only the current
    /// forms.
    public var takesLegacyForms: Bool { self != .apple }

    /// The user agent's name for a subscription's page and events.
    public var browserDescription: String {
        switch self {
        case .apple: "Safari"
        case .mozilla: "Firefox"
        case .fcm: "Chrome"
        }
    }

    /// The service as the web apps page offers it: its owner, and the browser that uses it ("Apple (Safari)").
    public var label: String {
        let owner =
            switch self {
            case .apple: "Apple"
            case .mozilla: "Mozilla"
            case .fcm: "Google"
            }
        return "\(owner) (\(browserDescription))"
    }
}
