import HuddleCore

/// Why a push service refuses a push message request, before each service words it (``answer(_:)``).
public enum WebPushRefusal: Error, Sendable, Hashable {
    /// No subscription has the endpoint.
    case unknownSubscription
    /// The subscription ended: unsubscribed, or revoked by the browser.
    case subscriptionGone
    case methodNotAllowed
    case missingTTL
    case badTTL(String)
    case negativeTTL
    case badUrgency(String)
    case topicTooLong
    case topicAlphabet
    case payloadTooLarge(Int)
    case missingContentEncoding
    case unknownContentEncoding(String)
    case missingEncryptionHeader
    case missingSalt
    case missingSenderKey
    case saltWithAES128GCM
    case vapid(VAPIDFault)
    /// A fault asked for: too many requests, with the seconds of `Retry-After`.
    case tooManyRequests(retryAfter: Int)
    case internalError
    case unavailable
}

/// A push service's answer: the status, the headers and the body as the service gives them.
public struct WebPushAnswer: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: String

    /// Apple's, Mozilla's and FCM's words for the refusal (docs/web-push.md gives each one's source).
    public init(_ refusal: WebPushRefusal, service: WebPushService) {
        switch service {
        case .apple:
            let (status, reason) = Self.apple(refusal)
            self.init(status: status, headers: ["content-type": "application/json"], body: JSONValue.object(JSONObject([("reason", .string(reason))])).jsonText())
        case .mozilla:
            let (status, errno, message) = Self.mozilla(refusal)
            let body = JSONObject([
                ("code", .integer(Int64(status))), ("errno", errno.map { .integer(Int64($0)) } ?? .null), ("error", .string(Self.reasonPhrase(status))),
                ("message", .string(message)), ("more_info", .string("http://autopush.readthedocs.io/en/latest/http.html#error-codes")),
            ])
            var headers = ["content-type": "application/json"]
            if refusal == .subscriptionGone { headers["cache-control"] = "max-age=86400" }
            self.init(status: status, headers: headers, body: JSONValue.object(body).jsonText())
        case .fcm:
            let (status, text) = Self.fcm(refusal)
            self.init(status: status, headers: ["content-type": "text/plain; charset=utf-8"], body: text + "\n")
        }
        switch refusal {
        case .tooManyRequests(let seconds): headers["retry-after"] = String(seconds)
        case .unavailable where service == .mozilla: headers["retry-after"] = "120"
        default: break
        }
    }

    public init(status: Int, headers: [String: String], body: String) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The reason an answer's record and the inspector show: Apple's `reason`, Mozilla's `errno` and message, FCM's text.
    public static func reason(_ refusal: WebPushRefusal, service: WebPushService) -> String {
        switch service {
        case .apple: apple(refusal).reason
        case .mozilla: mozilla(refusal).message
        case .fcm: fcm(refusal).text
        }
    }

    /// Apple's reasons; which status goes with which is Apple's status table read with senders' reports.
    static func apple(_ refusal: WebPushRefusal) -> (status: Int, reason: String) {
        switch refusal {
        case .unknownSubscription: (404, "BadPath")
        case .subscriptionGone: (410, "Unregistered")
        case .methodNotAllowed: (405, "MethodNotAllowed")
        case .missingTTL, .badTTL, .negativeTTL: (400, "BadTtl")
        case .badUrgency: (400, "BadUrgency")
        case .topicTooLong, .topicAlphabet: (400, "BadWebPushTopic")
        case .payloadTooLarge: (413, "PayloadTooLarge")
        case .missingContentEncoding, .unknownContentEncoding, .missingEncryptionHeader, .missingSalt, .missingSenderKey, .saltWithAES128GCM:
            (400, "BadWebPushRequest")
        case .vapid(let fault):
            switch fault {
            case .unknownScheme, .malformedHeader: (403, "BadAuthorizationHeader")
            case .missingPublicKey, .publicKey: (400, "BadVapidPublicKey")
            case .keyMismatch: (400, "VapidPkHashMismatch")
            case .missing, .malformedToken, .badSignature, .missingExpiry, .expired, .expiresTooLate, .wrongAudience, .badSubject: (403, "BadJwtToken")
            }
        case .tooManyRequests: (429, "TooManyRequests")
        case .internalError: (500, "InternalServerError")
        case .unavailable: (503, "ServiceUnavailable")
        }
    }

    /// autopush-rs's status, errno and message for each (its `error.rs` and the extractors that raise them).
    static func mozilla(_ refusal: WebPushRefusal) -> (status: Int, errno: Int?, message: String) {
        switch refusal {
        case .unknownSubscription: (404, 102, "Invalid token")
        case .subscriptionGone: (410, 106, "No such subscription")
        case .methodNotAllowed: (405, nil, "Method Not Allowed")
        case .missingTTL, .badTTL: (400, 111, "Missing TTL value")
        case .negativeTTL: (400, 114, "ttl: TTL must be greater than 0\n")
        case .badUrgency: (400, nil, "Invalid Urgency")  // not reached: autopush reads no Urgency
        case .topicTooLong: (400, 113, "topic: Topic must be no greater than 32 characters\n")
        case .topicAlphabet: (400, 113, "topic: Topic must be URL and Filename safe Base64 alphabet\n")
        case .payloadTooLarge: (413, 104, "payload reached size limit")
        case .missingContentEncoding: (400, 110, "Missing Content-Encoding header")
        case .unknownContentEncoding: (400, 110, "Unknown Content-Encoding header")
        case .missingEncryptionHeader: (400, 110, "Missing Encryption header")
        case .missingSalt: (400, 110, "Missing salt value in Encryption header")
        case .missingSenderKey: (400, 110, "Missing Crypto-Key header")
        case .saltWithAES128GCM: (400, 110, "Do not include 'salt' header in aes128gcm Encryption header")
        case .vapid(let fault):
            switch fault {
            case .missing, .missingPublicKey: (401, 109, "Missing VAPID public key")
            case .unknownScheme: (401, 109, "Unknown auth scheme")
            case .malformedHeader: (401, 109, "Missing VAPID token")
            case .publicKey: (401, 109, "Invalid VAPID public key")
            case .malformedToken(let detail): (401, 109, "Invalid VAPID token: \(detail)")
            case .badSignature: (401, 109, "InvalidSignature")
            case .missingExpiry: (401, 109, "Invalid VAPID token: missing field `exp`")
            case .expired: (401, 109, "ExpiredSignature")
            case .expiresTooLate: (401, 109, "The VAPID token expiration is too long")
            case .wrongAudience: (401, 109, "Invalid VAPID audience")
            case .badSubject: (401, 109, "Invalid VAPID subject")  // not reached: autopush only logs a bad sub
            case .keyMismatch: (401, 109, "VAPID public key mismatch")
            }
        case .tooManyRequests: (429, nil, "Too many requests")  // Huddle's own: autopush-rs sends no 429
        case .internalError: (500, 999, "An internal error occurred")
        case .unavailable: (503, 201, "A database error occurred")
        }
    }

    /// FCM's texts: Chromium's record of its 403s and senders' captures where they exist, else Huddle's own words in
    /// FCM's style (marked so in docs/web-push.md).
    static func fcm(_ refusal: WebPushRefusal) -> (status: Int, text: String) {
        switch refusal {
        case .unknownSubscription:
            (404, "A valid push subscription endpoint should be specified in the URL as such: https://fcm.googleapis.com/wp/...")
        case .subscriptionGone: (410, "push subscription has unsubscribed or expired.")
        case .methodNotAllowed: (405, "method not allowed. push messages are sent with POST.")
        case .missingTTL, .badTTL, .negativeTTL: (400, "ttl header must be specified as a non-negative number of seconds.")
        case .badUrgency: (400, "urgency header must be one of very-low, low, normal or high.")
        case .topicTooLong, .topicAlphabet: (400, "topic header must be at most 32 characters of the URL and filename safe base64 alphabet.")
        case .payloadTooLarge: (400, "The maximum size accepted by FCM is 4096 bytes.")
        case .missingContentEncoding, .unknownContentEncoding, .missingEncryptionHeader, .missingSalt, .missingSenderKey, .saltWithAES128GCM:
            (400, "content-encoding header must be aes128gcm (or aesgcm with encryption and crypto-key headers).")
        case .vapid(let fault):
            switch fault {
            case .missing: (401, "authorization header must be specified.")
            case .unknownScheme, .malformedHeader:
                (403, "authorization header had invalid format. authorization header should have the following format: t=jwtToken; k=base64(publicApplicationServerKey)")
            case .missingPublicKey: (403, "crypto-key header had invalid format. crypto-key header should have the following format: p256ecdsa=base64(publicApplicationServerKey)")
            case .publicKey(.notBase64URL): (403, "make sure the public key is base64url-encoded [RFC7515]")
            case .publicKey(.wrongLength): (403, "public key must be 65 bytes long")
            case .publicKey(.compressed): (403, "public key must be in uncompressed form. (First byte needs to be 0x04)")
            case .publicKey(.notOnCurve): (403, "VAPID public key must be on the P-256 curve")
            case .malformedToken, .badSignature, .badSubject: (403, "invalid JWT provided")
            case .missingExpiry: (403, "exp claim is missing")
            case .expired: (403, "token has expired")
            case .expiresTooLate: (403, "exp claim MUST NOT be more than 24 hours from the time of the request")
            case .wrongAudience: (403, "aud claim in the token MUST include the origin of the push resource URL")
            case .keyMismatch:
                (403, "the VAPID credentials in the authorization header do not correspond to the credentials used to create the subscriptions.")
            }
        case .tooManyRequests: (429, "too many requests. retry after the time in the retry-after header.")
        case .internalError: (500, "internal error.")
        case .unavailable: (503, "service unavailable. retry later.")
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 429: "Too Many Requests"
        case 503: "Service Unavailable"
        default: "Internal Server Error"
        }
    }
}
