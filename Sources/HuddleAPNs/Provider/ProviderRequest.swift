import Foundation
import HuddleCore

/// A request to the provider endpoint, as the HTTP layer hands it over: method, path, header fields
/// (names lowercased, repeats kept) and body.
public struct ProviderRequest: Sendable {
    public var method: String
    public var path: String
    public var headers: [(name: String, value: String)]

    public init(method: String, path: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.path = path
        self.headers = headers
    }

    public func values(_ name: String) -> [String] {
        headers.filter { $0.name == name }.map(\.value)
    }

    /// The first value of a header, without gathering the others (every push asks for several).
    public func first(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }
}

/// The header and path part of a push that passed its checks.
public struct ProviderPush: Sendable, Hashable {
    /// The `apns-id`, canonical lowercase; generated when the request had none.
    public var apnsID: String
    public var deviceToken: String
    /// The full `apns-topic`, suffix included.
    public var topic: String
    /// The app's bundle identifier: the topic without its push-type suffix.
    public var bundleIdentifier: String
    public var pushType: PushType
    public var priority: Int
    /// `apns-expiration`; `nil` when absent, 0 for "now or never".
    public var expiration: Int64?
    public var collapseID: String?
    /// The provider token from `authorization: bearer …`, if any.
    public var providerToken: String?
}

/// The checks of a provider request that need nothing but the request, in the order apns.md gives (the
/// order Pushy's mock server uses): duplicate headers, apns-id, method, topic, collapse id, priority, push
/// type, then path and device token. The server goes on with token-for-topic, authentication and the
/// payload.
public enum ProviderRequestCheck {
    /// Headers that may appear once only.
    static let singleHeaders = [
        "apns-id", "apns-topic", "apns-push-type", "apns-expiration", "apns-priority", "apns-collapse-id", "authorization",
    ]

    /// - Returns: the push, or the reason to refuse it; `apnsID` is what to echo in either case.
    public static func check(_ request: ProviderRequest) -> (apnsID: String, result: Result<ProviderPush, APNsReason>) {
        let sentID = request.first("apns-id")
        let apnsID = sentID.flatMap(canonicalUUID) ?? UUID.randomLowercasedString()
        return (apnsID, Result { () throws(APNsReason) in try checkAll(request, apnsID: apnsID, sentID: sentID) })
    }

    private static func checkAll(_ request: ProviderRequest, apnsID: String, sentID: String?) throws(APNsReason) -> ProviderPush {
        if repeatsAny(of: singleHeaders, in: request) { throw .duplicateHeaders }
        if let sentID, canonicalUUID(sentID) == nil { throw .badMessageId }
        guard request.method == "POST" else { throw .methodNotAllowed }

        guard let topic = request.first("apns-topic") else { throw .missingTopic }
        guard isValidTopic(topic) else { throw .badTopic }

        let collapseID = request.first("apns-collapse-id")
        if let collapseID, collapseID.utf8.count > 64 { throw .badCollapseId }

        var sentPriority: Int?
        if let text = request.first("apns-priority") {
            guard let value = Int(text), [1, 5, 10].contains(value) else { throw .badPriority }
            sentPriority = value
        }

        let pushType: PushType
        if let name = request.first("apns-push-type") {
            guard let type = PushType(rawValue: name) else { throw .invalidPushType }
            pushType = type
        } else {
            // Required only for watchOS; others default to an alert, as APNs does.
            pushType = topic.hasSuffix(".voip") ? .voip : .alert
        }
        if let sentPriority, !pushType.allows(priority: sentPriority) { throw .badPriority }
        let priority = sentPriority ?? pushType.defaultPriority
        let bundleIdentifier: String
        if let suffix = pushType.topicSuffix {
            guard topic.hasSuffix(suffix), topic.count > suffix.count else { throw .topicDisallowed }
            bundleIdentifier = String(topic.dropLast(suffix.count))
        } else {
            // A topic carrying another push type's suffix cannot take this push type.
            if PushType.allCases.compactMap(\.topicSuffix).contains(where: { topic.hasSuffix($0) }) { throw .topicDisallowed }
            bundleIdentifier = topic
        }

        var expiration: Int64?
        if let text = request.first("apns-expiration") {
            guard let value = Int64(text), value >= 0 else { throw .badExpirationDate }
            expiration = value
        }

        let prefix = "/3/device/"
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        guard path.hasPrefix(prefix) else { throw .badPath }
        let token = String(path.dropFirst(prefix.count))
        guard !token.isEmpty else { throw .missingDeviceToken }
        guard !token.utf8.contains(UInt8(ascii: "/")) else { throw .badPath }
        guard isValidDeviceToken(token) else { throw .badDeviceToken }

        return ProviderPush(
            apnsID: apnsID, deviceToken: token.lowercased(), topic: topic, bundleIdentifier: bundleIdentifier,
            pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID,
            providerToken: try providerToken(of: request))
    }

    /// Whether any of `names` appears more than once. Nothing allocated: each header of those names looks for its
    /// name further on, and the first repeat ends the search.
    public static func repeatsAny(of names: [String], in request: ProviderRequest) -> Bool {
        for (index, header) in request.headers.enumerated() where names.contains(header.name) {
            if request.headers[(index + 1)...].contains(where: { $0.name == header.name }) { return true }
        }
        return false
    }

    /// The provider token of `authorization: bearer <token>`; nil without the header.
    /// - Throws: `InvalidProviderToken` for another scheme or no token.
    public static func providerToken(of request: ProviderRequest) throws(APNsReason) -> String? {
        guard let authorization = request.first("authorization") else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw .invalidProviderToken }
        return String(parts[1].trimmingSpacesAndTabs)
    }

    /// A UUID in canonical form (8-4-4-4-12 hexadecimal), lowercased; `nil` otherwise.
    public static func canonicalUUID(_ text: String) -> String? {
        // Byte by byte: hyphens at 8, 13, 18 and 23, ASCII hexadecimal digits elsewhere.
        let bytes = text.utf8
        guard bytes.count == 36 else { return nil }
        for (offset, byte) in bytes.enumerated() {
            let isHyphenPlace = offset == 8 || offset == 13 || offset == 18 || offset == 23
            guard isHyphenPlace ? byte == UInt8(ascii: "-") : byte.isASCIIHexDigit else { return nil }
        }
        return text.lowercased()
    }

    /// Device tokens are hexadecimal, at least 32 bytes (64 digits); Huddle issues 64-digit ones.
    public static func isValidDeviceToken(_ token: String) -> Bool {
        // In bytes: a token of ASCII digits has as many bytes as characters, and any other byte fails it.
        let bytes = token.utf8
        return bytes.count >= 64 && bytes.count <= 200 && bytes.count % 2 == 0 && bytes.allSatisfy(\.isASCIIHexDigit)
    }

    /// Bundle identifiers: letters, digits, hyphens and periods (and the push-type suffixes, which use
    /// the same characters).
    public static func isValidTopic(_ topic: String) -> Bool {
        // In bytes: a topic of ASCII characters has as many bytes as characters, and any other byte fails it.
        let bytes = topic.utf8
        return !bytes.isEmpty && bytes.count <= 255 && bytes.first != UInt8(ascii: ".") && bytes.last != UInt8(ascii: ".")
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }
}

extension UInt8 {
    /// 0-9, a-f, A-F.
    var isASCIIHexDigit: Bool {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace); cheaper than Foundation's
    /// `trimmingCharacters(in:)`, which bridges to NSString on Linux, on a path every push takes.
    var trimmingSpacesAndTabs: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}
