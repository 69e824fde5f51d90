public import Foundation
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

    /// The path without its query: up to the first `?` byte (a URL's delimiter, whatever follows it).
    public var pathWithoutQuery: Substring {
        guard let question = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return path[...] }
        return path[..<question]
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

    /// - Parameter now: the server's time, which an `apns-id` made for the request carries.
    /// - Returns: the push, or the reason to refuse it; `apnsID` is what to echo in either case.
    public static func check(_ request: ProviderRequest, now: Date) -> (apnsID: String, result: Result<ProviderPush, APNsReason>) {
        let apnsID = apnsID(of: request, now: now)
        return (apnsID, Result { () throws(APNsReason) in try checkAll(request, apnsID: apnsID, sentID: request.first("apns-id")) })
    }

    /// The `apns-id` a request is answered with, accepted or refused: the one it sent, in canonical form, else a
    /// new time-ordered one of `now` (``Foundation/UUID/timeOrderedLowercasedString(at:)``), as APNs makes one
    /// for a request that has none.
    public static func apnsID(of request: ProviderRequest, now: Date) -> String {
        request.first("apns-id").flatMap(canonicalUUID) ?? UUID.timeOrderedLowercasedString(at: now)
    }

    private static func checkAll(_ request: ProviderRequest, apnsID: String, sentID: String?) throws(APNsReason) -> ProviderPush {
        if repeatsAny(of: singleHeaders, in: request) { throw .duplicateHeaders }
        if let sentID, canonicalUUID(sentID) == nil { throw .badMessageId }
        guard request.method == "POST" else { throw .methodNotAllowed }

        guard let topic = request.first("apns-topic") else { throw .missingTopic }
        guard isValidTopic(topic) else { throw .badTopic }

        let fields = try headerFields(
            topic: topic, collapseID: request.first("apns-collapse-id"), priority: request.first("apns-priority"),
            pushType: request.first("apns-push-type"), expiration: request.first("apns-expiration"))

        guard let sentToken = deviceToken(in: request) else { throw .badPath }
        let token = String(sentToken)
        guard !token.isEmpty else { throw .missingDeviceToken }
        guard !token.utf8.contains(UInt8(ascii: "/")) else { throw .badPath }
        guard isValidDeviceToken(token) else { throw .badDeviceToken }

        return ProviderPush(
            apnsID: apnsID, deviceToken: token.lowercased(), topic: topic, bundleIdentifier: fields.bundleIdentifier,
            pushType: fields.pushType, priority: fields.priority, expiration: fields.expiration, collapseID: fields.collapseID,
            providerToken: try providerToken(of: request))
    }

    /// What a push's `apns-*` headers say once APNs' rules passed them.
    public struct HeaderFields: Sendable, Hashable {
        public var bundleIdentifier: String
        public var pushType: PushType
        public var priority: Int
        public var expiration: Int64?
        public var collapseID: String?
    }

    /// The checks of the headers that say how a push is delivered, in APNs' order (collapse id, priority, push type,
    /// the topic's suffix, expiration): what every push to the provider endpoint passes, and the APNs push that FCM
    /// makes of a message for an iPhone too, so that no API brings an iPhone what APNs would refuse.
    /// - Parameter topic: a valid `apns-topic` (``isValidTopic(_:)``).
    public static func headerFields(
        topic: String, collapseID: String?, priority priorityText: String?, pushType pushTypeName: String?, expiration expirationText: String?
    ) throws(APNsReason) -> HeaderFields {
        if let collapseID, collapseID.utf8.count > 64 { throw .badCollapseId }

        var sentPriority: Int?
        if let priorityText {
            guard let value = Int(priorityText), [1, 5, 10].contains(value) else { throw .badPriority }
            sentPriority = value
        }

        let pushType: PushType
        if let pushTypeName {
            guard let type = PushType(rawValue: pushTypeName) else { throw .invalidPushType }
            pushType = type
        } else {
            // Required only for watchOS; others default to an alert, as APNs does.
            pushType = topic.utf8.hasSuffix(".voip".utf8) ? .voip : .alert
        }
        if let sentPriority, !pushType.allows(priority: sentPriority) { throw .badPriority }
        let priority = sentPriority ?? pushType.defaultPriority
        // The topic is ASCII (isValidTopic): its suffixes are compared byte by byte.
        let bundleIdentifier: String
        if let suffix = pushType.topicSuffix {
            guard topic.utf8.count > suffix.utf8.count, topic.utf8.hasSuffix(suffix.utf8) else { throw .topicDisallowed }
            bundleIdentifier = String(decoding: topic.utf8.dropLast(suffix.utf8.count), as: UTF8.self)
        } else {
            // A topic carrying another push type's suffix cannot take this push type.
            if PushType.topicSuffixes.contains(where: { topic.utf8.hasSuffix($0.utf8) }) { throw .topicDisallowed }
            bundleIdentifier = topic
        }

        var expiration: Int64?
        if let expirationText {
            guard let value = Int64(expirationText), value >= 0 else { throw .badExpirationDate }
            expiration = value
        }
        return HeaderFields(bundleIdentifier: bundleIdentifier, pushType: pushType, priority: priority, expiration: expiration, collapseID: collapseID)
    }

    /// Whether any of `names` appears more than once. Nothing allocated: each header of those names looks for its
    /// name further on, and the first repeat ends the search.
    public static func repeatsAny(of names: [String], in request: ProviderRequest) -> Bool {
        for (index, header) in request.headers.enumerated() where names.contains(header.name) {
            if request.headers[(index + 1)...].contains(where: { $0.name == header.name }) { return true }
        }
        return false
    }

    static let devicePathPrefix = "/3/device/"

    /// What follows `/3/device/` in the request's path, without the query, as sent; `nil` for another path.
    public static func deviceToken(in request: ProviderRequest) -> Substring? {
        let path = request.pathWithoutQuery
        guard path.utf8.starts(with: devicePathPrefix.utf8) else { return nil }
        return path[path.utf8.index(path.startIndex, offsetBy: devicePathPrefix.utf8.count)...]
    }

    /// The provider token of `authorization: bearer <token>`; nil without the header.
    /// - Throws: `InvalidProviderToken` for another scheme or no token.
    public static func providerToken(of request: ProviderRequest) throws(APNsReason) -> String? {
        guard let authorization = request.first("authorization") else { return nil }
        // Byte by byte (a token is a few hundred bytes, and every push has one): the scheme up to the first
        // space, compared without regard to case, then the token without spaces and tabs around it.
        let bytes = authorization.utf8
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
            bytes[..<space].elementsEqual("bearer".utf8, by: { $0 | 0x20 == $1 })
        else { throw .invalidProviderToken }
        let token = authorization[bytes.index(after: space)...].trimmingSpacesAndTabs
        guard !token.isEmpty else { throw .invalidProviderToken }
        return String(token)
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
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace), found byte by byte; cheaper
    /// than Foundation's `trimmingCharacters(in:)`, which bridges to NSString on Linux, on a path every push
    /// takes.
    var trimmingSpacesAndTabs: Substring {
        let isSpace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[first...last]
    }
}

extension String.UTF8View {
    /// Whether the bytes end with `suffix`'s.
    func hasSuffix(_ suffix: String.UTF8View) -> Bool {
        count >= suffix.count && self.suffix(suffix.count).elementsEqual(suffix)
    }
}
