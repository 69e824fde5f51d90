public import Foundation

/// A broadcast channel (iOS 18): one update sent to it reaches every Live Activity that listens on it
/// (docs/broadcasts.md).
///
/// A channel belongs to one app in one environment, as Apple keeps them; its identifier is what a device
/// subscribes with (`Activity.request(…, pushType: .channel(id))`, or `input-push-channel` on a
/// push-to-start).
public struct BroadcastChannel: Sendable, Hashable {
    /// Whether APNs keeps a channel's latest broadcast for activities that subscribe after it was sent.
    public enum StoragePolicy: Int, Sendable, Hashable, CaseIterable {
        case noMessageStored = 0
        case mostRecentMessageStored = 1
    }

    /// Channels one app may have in one environment (Apple: 10,000); a creation past it is refused with
    /// `CannotCreateChannelConfig`.
    public static let maximumPerApp = 10_000
    /// The only push type a channel carries, as the channel API spells it.
    public static let pushType = "LiveActivity"

    public var id: String
    public var app: String
    public var environment: APNsEnvironment
    public var storagePolicy: StoragePolicy
    public var createdAt: Date
    /// The latest broadcast, kept only under ``StoragePolicy/mostRecentMessageStored``.
    public var lastMessage: StoredBroadcast?

    public init(
        id: String, app: String, environment: APNsEnvironment, storagePolicy: StoragePolicy, createdAt: Date,
        lastMessage: StoredBroadcast? = nil
    ) {
        self.id = id
        self.app = app
        self.environment = environment
        self.storagePolicy = storagePolicy
        self.createdAt = createdAt
        self.lastMessage = lastMessage
    }

    /// A new identifier: 16 random bytes in base64, the shape of Apple's.
    public static func newID() -> String {
        Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// Whether `text` can be a channel identifier: base64 of 1 to 64 bytes. Anything else is `BadChannelId`
    /// before any store is asked.
    public static func isWellFormedID(_ text: String) -> Bool {
        guard text.utf8.count <= 88, let bytes = Data(base64Encoded: text) else { return false }
        return !bytes.isEmpty
    }

    /// The channel as the channel API reads it back (`GET …/channels`).
    public var apiJSON: JSONValue {
        .object(JSONObject([("message-storage-policy", .integer(Int64(storagePolicy.rawValue))), ("push-type", .string(Self.pushType))]))
    }
}

/// A broadcast a channel keeps for activities that subscribe later.
public struct StoredBroadcast: Sendable, Hashable {
    public var payload: JSONValue
    public var apnsID: String
    public var priority: Int
    public var sentAt: Date
    /// When it stops being handed to new subscribers (`apns-expiration`); nil: until the next replaces it.
    public var expiresAt: Date?

    public init(payload: JSONValue, apnsID: String, priority: Int, sentAt: Date, expiresAt: Date?) {
        self.payload = payload
        self.apnsID = apnsID
        self.priority = priority
        self.sentAt = sentAt
        self.expiresAt = expiresAt
    }

    public func isCurrent(at now: Date) -> Bool {
        expiresAt.map { now < $0 } ?? true
    }

    /// As the stores keep it: one JSON object.
    public var storedText: String {
        var object = JSONObject([
            ("payload", payload), ("apnsID", .string(apnsID)), ("priority", .integer(Int64(priority))),
            ("sentAt", .integer(sentAt.milliseconds)),
        ])
        object["expiresAt"] = expiresAt.map { JSONValue.integer($0.milliseconds) }
        return JSONValue.object(object).jsonText()
    }

    /// Reads what ``storedText`` wrote.
    /// - Throws: ``StoreError`` `.corrupt` when it cannot be read.
    public static func stored(_ text: String?, channel id: String) throws(StoreError) -> StoredBroadcast? {
        guard let text else { return nil }
        do {
            let reader = JSONReader(try JSONParser.parse(text))
            return StoredBroadcast(
                payload: try reader.member("payload").value, apnsID: try reader.member("apnsID").string(),
                priority: try reader.member("priority").integer(), sentAt: Date(milliseconds: Int64(try reader.member("sentAt").integer())),
                expiresAt: try reader.optionalMember("expiresAt").map { member throws(JSONReadError) in Date(milliseconds: Int64(try member.integer())) })
        } catch {
            throw StoreError(.corrupt, "the stored broadcast of channel \(id) cannot be read: \(error)")
        }
    }
}
