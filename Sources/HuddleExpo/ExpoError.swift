public import HuddleCore

/// A refusal of a whole request to Expo's push API: an HTTP status and `{"errors": [{"code", "message", "details"?}]}`.
/// The Python SDK raises `PushServerError` for any answer with `errors`, the Node SDK an `Error` with the first one's
/// `code` (docs/expo.md, "Request errors").
public struct ExpoRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case validationError = "VALIDATION_ERROR"
        case tooManyNotifications = "PUSH_TOO_MANY_NOTIFICATIONS"
        case tooManyReceipts = "PUSH_TOO_MANY_RECEIPTS"
        case tooManyExperienceIDs = "PUSH_TOO_MANY_EXPERIENCE_IDS"
        case unauthorized = "UNAUTHORIZED"
        case tooManyRequests = "TOO_MANY_REQUESTS"
        case methodNotAllowed = "METHOD_NOT_ALLOWED"
        case internalServerError = "INTERNAL_SERVER_ERROR"

        /// Expo documents "4xx or 5xx" and, for the rate, 429; the rest are chosen (docs/expo.md).
        public var httpStatus: Int {
            switch self {
            case .validationError, .tooManyNotifications, .tooManyReceipts, .tooManyExperienceIDs: 400
            case .unauthorized: 401
            case .tooManyRequests: 429
            case .methodNotAllowed: 405
            case .internalServerError: 500
            }
        }
    }

    public var code: Code
    public var message: String
    public var details: JSONValue?
    /// For a `VALIDATION_ERROR`: the key path of the member at fault (`[1].priority`), as ``JSONReader`` writes it.
    public var keyPath: String?

    public init(_ code: Code, _ message: String, details: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.details = details
    }

    /// A message or body that is not what Expo's API takes, at its key path.
    public static func validation(_ error: JSONReadError) -> ExpoRequestError {
        var refusal = ExpoRequestError(.validationError, error.path.isEmpty ? error.message : "\"\(error.path)\" \(error.message)")
        refusal.keyPath = error.path
        return refusal
    }

    public var httpStatus: Int { code.httpStatus }

    /// The answer's body.
    public var json: JSONValue {
        var error = JSONObject([("code", .string(code.rawValue)), ("message", .string(message))])
        if let details { error["details"] = details }
        return .object(JSONObject([("errors", .array([.object(error)]))]))
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

/// Why one notification did not reach its device, as a ticket's or receipt's `details.error` says it. The Python SDK
/// raises `DeviceNotRegisteredError`, `MessageTooBigError`, `MessageRateExceededError` and (receipts)
/// `InvalidCredentialsError` for these, `PushTicketError` for the rest.
public enum ExpoDeliveryError: String, Sendable, Hashable, CaseIterable {
    case deviceNotRegistered = "DeviceNotRegistered"
    case messageTooBig = "MessageTooBig"
    case messageRateExceeded = "MessageRateExceeded"
    case mismatchSenderID = "MismatchSenderId"
    case invalidCredentials = "InvalidCredentials"
    /// Node's SDK types three more, for when no more precise code is known.
    case developerError = "DeveloperError"
    case expoError = "ExpoError"
    case providerError = "ProviderError"

    /// What Expo says with it (its page's explanations, in Huddle's words where it gives none).
    public func message(token: String) -> String {
        switch self {
        case .deviceNotRegistered: "\"\(token)\" is not a registered push notification recipient"
        case .messageTooBig: "The notification was too large. On Android and iOS, the total payload must be at most 4096 bytes."
        case .messageRateExceeded: "The notification was sent to \"\(token)\" too frequently. Back off and retry later."
        case .mismatchSenderID: "The FCM credentials of the project do not match the sender of \"\(token)\"."
        case .invalidCredentials: "The push notification credentials of the project are invalid or revoked."
        case .developerError: "The notification could not be delivered because of a problem with the request."
        case .expoError: "The notification could not be delivered because of an error of the push service."
        case .providerError: "APNs or FCM refused the notification."
        }
    }
}
