import Foundation
import HuddleCore
import HuddleWebPush

/// Web Push files: a Declarative Web Push message (`{"web_push": 8030, …}`), read as WebKit reads it, and a request's
/// description (`{"vapid": {…}, "topic", "urgency", "ttl", "payload"}`), checked as each push service checks it
/// (docs/web-push.md).
struct WebPushRules {
    /// The most plaintext one push carries: 4,096 bytes of body less the `aes128gcm` header (86), the padding
    /// delimiter (1) and the tag (16), RFC 8291 §4.
    static let maximumPlaintext = 3993

    /// Whether a JSON file is a Declarative Web Push message.
    static func isDeclarative(_ json: JSONValue) -> Bool {
        guard case .object(let object) = json else { return false }
        return object["web_push"] != nil && object["aps"] == nil
    }

    /// Whether a JSON file describes a web push request: an object with `vapid` claims.
    static func isRequest(_ json: JSONValue) -> Bool {
        guard case .object(let object) = json, case .object? = object["vapid"] else { return false }
        return object["aps"] == nil && object["message"] == nil && object["apps"] == nil
    }

    static func check(_ document: JSONDocument, now: Date = Date()) {
        if isRequest(document.json) {
            checkRequest(document, now: now)
        } else {
            checkMessage(document.json, in: document, at: [])
        }
    }

    /// A declarative message under `prefix`.
    static func checkMessage(_ json: JSONValue, in document: JSONDocument, at prefix: JSONDocument.Path) {
        let bytes = json.jsonUTF8()
        if bytes.count > maximumPlaintext {
            document.report(
                .webPushTooLarge, at: prefix,
                "\(bytes.count) bytes as sent compactly; a push carries at most \(maximumPlaintext) (4096 encrypted), which every push service refuses past (413, FCM 400)")
        }
        guard case .invalid(let reason) = DeclarativePushMessage.read(Data(bytes)) else { return }
        let key = reason.prefix { $0 != ":" }
        document.report(
            .webPushDeclarative, at: document.path(String(key), under: prefix),
            "\(reason): Safari does not show it as declared, and hands the push to the web app's service worker (WebKit's parser)")
    }

    private static func checkRequest(_ document: JSONDocument, now: Date) {
        guard case .object(let request) = document.json else { return }
        let known: Set = ["vapid", "topic", "urgency", "ttl", "payload", "service"]
        for key in request.keys where !known.contains(key) {
            document.report(.webPushRequest, severity: .warning, at: [.key(key)], "not a member of a web push request (\(known.sorted().joined(separator: ", ")))")
        }
        if let topic = request["topic"] {
            if case .string(let text) = topic {
                var refusals: [String] = []
                for service in WebPushService.allCases {
                    do {
                        try PushMessageHeaders.checkTopic(text, service: service)
                    } catch {
                        refusals.append("\(service.rawValue) answers \(WebPushAnswer(error, service: service).status)")
                    }
                }
                if !refusals.isEmpty {
                    document.report(
                        .webPushRequest, at: [.key("topic")],
                        "a Topic is at most 32 characters of the URL-safe base64 alphabet (RFC 8030 §5.4; Apple also refuses a length one more than a multiple of 4): \(refusals.joined(separator: ", "))")
                }
            } else {
                document.report(.webPushRequest, at: [.key("topic")], "a Topic is a string")
            }
        }
        if let urgency = request["urgency"] {
            if case .string(let text) = urgency, PushMessageHeaders.Urgency(rawValue: text) != nil {} else {
                document.report(.webPushRequest, at: [.key("urgency")], "Urgency is very-low, low, normal or high (RFC 8030 §5.3): Apple and FCM answer 400")
            }
        }
        if let ttl = request["ttl"] {
            if case .integer(let seconds) = ttl, seconds >= 0 {
                if seconds > Int64(PushMessageHeaders.longestTTL(.fcm)) {
                    document.report(
                        .webPushRequest, severity: .note, at: [.key("ttl")],
                        "kept at most 30 days by Apple and Mozilla, 28 by FCM: the TTL answered is lowered")
                }
            } else {
                document.report(.webPushRequest, at: [.key("ttl")], "TTL is a whole number of seconds, 0 or more (RFC 8030 §5.2): every service answers 400")
            }
        }
        if case .object(let vapid)? = request["vapid"] {
            checkClaims(vapid, in: document, now: now)
        }
        if let payload = request["payload"] {
            checkMessage(payload, in: document, at: [.key("payload")])
        }
    }

    private static func checkClaims(_ vapid: JSONObject, in document: JSONDocument, now: Date) {
        let at: (String) -> JSONDocument.Path = { [.key("vapid"), .key($0)] }
        switch vapid["sub"] {
        case .string(let subject)?:
            if !VAPIDClaims.isContactApple(subject) {
                document.report(
                    .webPushRequest, at: at("sub"),
                    "Apple refuses this subject (403 BadJwtToken): a mailto: of a real address, or an https: URL, neither at localhost or a reserved name")
            }
        case nil:
            document.report(.webPushRequest, at: [.key("vapid")], "no sub: Apple refuses a token without a contact (403 BadJwtToken)")
        default:
            document.report(.webPushRequest, at: at("sub"), "sub is a string (a mailto: or https: URI)")
        }
        if let audience = vapid["aud"] {
            if case .string(let text) = audience, WebPushSubscription.appTopic(origin: text) != nil, WebPushSubscription.canonicalOrigin(text) == text {} else {
                document.report(
                    .webPushRequest, at: at("aud"),
                    "aud is the origin of the endpoint as a browser serializes it (scheme, lowercase host, port unless the default, no path), RFC 8292 §2: every service refuses another (Apple 403, Mozilla 401, FCM 403)")
            }
        }
        if let expiry = vapid["exp"] {
            if case .integer(let exp) = expiry {
                // Each service's own check of the claims (Mozilla allows some lateness), its `exp` faults alone.
                let claims = VAPIDClaims(audience: "", expiresAt: exp, subject: nil)
                var refusing: [VAPIDFault: [WebPushService]] = [:]
                for service in WebPushService.allCases {
                    do {
                        try claims.check(service: service, audience: "", now: now)
                    } catch {
                        refusing[error, default: []].append(service)
                    }
                }
                func whoRefuses(_ services: [WebPushService]) -> String {
                    services.count == WebPushService.allCases.count
                        ? "every service refuses" : services.map(\.rawValue).joined(separator: " and ") + (services.count == 1 ? " refuses" : " refuse")
                }
                if let services = refusing[.expiresTooLate] {
                    document.report(.webPushRequest, at: at("exp"), "exp is more than 24 hours ahead (RFC 8292 §2): \(whoRefuses(services)) it")
                } else if let services = refusing[.expired] {
                    document.report(.webPushRequest, severity: .warning, at: at("exp"), "exp has passed: \(whoRefuses(services)) the token")
                }
            } else {
                document.report(.webPushRequest, at: at("exp"), "exp is a whole number of seconds since 1970")
            }
        }
    }
}
