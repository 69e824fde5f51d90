/// The reasons APNs gives for refusing a push, by Apple's names ("Handling notification responses from
/// APNs"), plus `BadPayload` for a payload that is not JSON, for which Apple publishes no reason.
///
/// The HTTP status of each lives in the server, with the rest of the status mapping.
public enum APNsReason: String, Sendable, Hashable, CaseIterable, Error {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    case badPayload = "BadPayload"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    /// A provider token signed with a key restricted to the other environment (keys may be restricted since
    /// February 2025; Apple's stored reason table predates it, so the reason and its 403 are from APNs'
    /// answers as clients record them: docs/environments.md).
    case badEnvironmentKeyInToken = "BadEnvironmentKeyInToken"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"
    // Broadcast channels and broadcasts (iOS 18). Apple's stored pages end before their reason tables; the names
    // are as the clients that implement the channel API report them (docs/broadcasts.md says which).
    case missingChannelId = "MissingChannelId"
    case badChannelId = "BadChannelId"
    case channelNotRegistered = "ChannelNotRegistered"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case missingPushType = "MissingPushType"
}
