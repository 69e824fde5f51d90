public import Foundation
import HuddleCore

/// The headers of a push message request (RFC 8030 §5, RFC 8291 §4), read as `service` reads them.
public struct PushMessageHeaders: Sendable, Hashable {
    public enum Urgency: String, Sendable, Hashable, CaseIterable {
        case veryLow = "very-low", low, normal, high
    }

    public enum ContentCoding: Sendable, Hashable {
        /// RFC 8291's: everything is in the body.
        case aes128gcm
        /// The drafts': the salt from `Encryption`, the sender's key from `Crypto-Key: dh=`.
        case aesgcm(salt: Data, senderKey: Data)
        /// An empty push (no body): a service may take it without `Content-Encoding`.
        case none
    }

    /// The seconds the service keeps it, as it answers in its `TTL` (lowered to the service's longest).
    public var ttl: Int
    /// `nil` when the request had none (then `normal`), or the service reads none (Mozilla).
    public var urgency: Urgency?
    public var topic: String?
    public var coding: ContentCoding

    /// The longest a service keeps a message: Apple "30 days or fewer", Mozilla 30 days, FCM four weeks.
    public static func longestTTL(_ service: WebPushService) -> Int {
        switch service {
        case .apple, .mozilla: 2_592_000
        case .fcm: 2_419_200
        }
    }

    /// Headers as read before (a push the service kept for an offline browser).
    public init(ttl: Int, urgency: Urgency?, topic: String?, coding: ContentCoding) {
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
        self.coding = coding
    }

    /// Reads the headers of a request with a body of `bodyLength` bytes, checking them in Mozilla's order (TTL,
    /// encryption, Topic); Urgency after them.
    /// - Parameter header: a header's value by its lowercased name (`nil` when absent).
    public init(service: WebPushService, bodyLength: Int, header: (String) -> String?) throws(WebPushRefusal) {
        guard let ttlText = header("ttl")?.trimmingCharacters(in: .whitespaces), !ttlText.isEmpty else { throw .missingTTL }
        let digits = ttlText.hasPrefix("-") ? ttlText.dropFirst() : Substring(ttlText)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw .badTTL(ttlText) }
        guard !ttlText.hasPrefix("-") else { throw .negativeTTL }
        // RFC 8030 §5.2: a value past 2^31 counts as 2^31; every service keeps far less.
        let significant = digits.drop { $0 == "0" }
        ttl = significant.count > 10 ? Self.longestTTL(service) : min(Int(significant) ?? 0, Self.longestTTL(service))

        let encoding = header("content-encoding")?.trimmingCharacters(in: .whitespaces).lowercased()
        let saltText = header("encryption").flatMap { VAPIDCredentials.parameter("salt", inCryptoKey: $0) }
        switch encoding {
        case nil, "":
            guard bodyLength == 0 else { throw .missingContentEncoding }
            coding = .none
        case "aes128gcm":
            guard saltText == nil else { throw .saltWithAES128GCM }
            coding = .aes128gcm
        case "aesgcm" where service.takesLegacyForms:
            guard header("encryption") != nil else { throw .missingEncryptionHeader }
            guard let saltText, let salt = Base64URL.decode(Substring(saltText.trimmingCharacters(in: CharacterSet(charactersIn: "=")))) else {
                throw .missingSalt
            }
            guard let keyText = header("crypto-key").flatMap({ VAPIDCredentials.parameter("dh", inCryptoKey: $0) }),
                let key = Base64URL.decode(Substring(keyText.trimmingCharacters(in: CharacterSet(charactersIn: "="))))
            else { throw .missingSenderKey }
            coding = .aesgcm(salt: salt, senderKey: key)
        case let other?:
            throw .unknownContentEncoding(String(other.prefix(40)))
        }

        if let topic = header("topic") {
            try Self.checkTopic(topic, service: service)
            self.topic = topic
        }
        if service != .mozilla, let text = header("urgency") {
            guard let urgency = Urgency(rawValue: text.trimmingCharacters(in: .whitespaces)) else { throw .badUrgency(String(text.prefix(40))) }
            self.urgency = urgency
        }
    }

    /// RFC 8030 §5.4: at most 32 characters of the URL- and filename-safe base64 alphabet. Mozilla also takes trailing
    /// `=`; Apple also refuses a length no base64 text has (one more than a multiple of 4), as senders measured it.
    public static func checkTopic(_ topic: String, service: WebPushService) throws(WebPushRefusal) {
        guard topic.utf8.count <= 32 else { throw .topicTooLong }
        let body = service == .mozilla ? Substring(topic).prefix { $0 != "=" } : Substring(topic)
        let padding = topic.utf8.count - body.utf8.count
        guard !topic.isEmpty, !body.isEmpty,
            body.utf8.allSatisfy({ VAPIDCredentials.isBase64URLByte($0) && $0 != UInt8(ascii: "=") }),
            topic.utf8.suffix(padding).allSatisfy({ $0 == UInt8(ascii: "=") })
        else { throw .topicAlphabet }
        if service == .apple, topic.utf8.count % 4 == 1 { throw .topicAlphabet }
    }
}
