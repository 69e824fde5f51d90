import HTTPTypes
import HuddleAPNs
import HuddleCore

// Every HTTP status Huddle answers with is chosen here, and only here.

extension APNsReason {
    /// The status APNs answers this reason with.
    var status: HTTPResponse.Status {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .badPayload:
            .badRequest
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken:
            .forbidden
        case .badPath: .notFound
        case .methodNotAllowed: .methodNotAllowed
        case .expiredToken, .unregistered: .gone
        case .payloadTooLarge: .contentTooLarge
        case .tooManyProviderTokenUpdates, .tooManyRequests: .tooManyRequests
        case .internalServerError: .internalServerError
        case .serviceUnavailable, .shutdown: .serviceUnavailable
        }
    }
}

/// A device or admin API request that cannot be served: its status, and a message for the caller.
struct APIError: Error {
    enum Kind {
        case badRequest, unauthorized, notFound, conflict, contentTooLarge, tooManyRequests, serviceUnavailable
    }

    var kind: Kind
    var message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    var status: HTTPResponse.Status {
        switch kind {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .notFound: .notFound
        case .conflict: .conflict
        case .contentTooLarge: .contentTooLarge
        case .tooManyRequests: .tooManyRequests
        case .serviceUnavailable: .serviceUnavailable
        }
    }
}

extension StoreError {
    var status: HTTPResponse.Status {
        switch code {
        case .notFound: .notFound
        case .conflict: .conflict
        case .corrupt: .internalServerError
        case .unavailable: .serviceUnavailable
        }
    }
}
