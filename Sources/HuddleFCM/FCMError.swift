public import HuddleCore

/// A refusal of the FCM HTTP v1 API, as Google writes it: an HTTP status and a `google.rpc.Status` body,
/// `{"error": {"code", "message", "status", "details": [...]}}`, whose details carry the FCM error code
/// (`google.firebase.fcm.v1.FcmError`) and the fields at fault (`google.rpc.BadRequest`). The Admin SDKs pick their
/// exception class from the first `FcmError` detail's `errorCode`, then from `status` (docs/fcm.md).
public struct FCMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `google.firebase.fcm.v1.ErrorCode`, with the HTTP status and `google.rpc.Code` name FCM answers it with.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case invalidArgument = "INVALID_ARGUMENT"
        case unregistered = "UNREGISTERED"
        case senderIDMismatch = "SENDER_ID_MISMATCH"
        case quotaExceeded = "QUOTA_EXCEEDED"
        case unavailable = "UNAVAILABLE"
        case `internal` = "INTERNAL"
        case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

        public var httpStatus: Int {
            switch self {
            case .invalidArgument: 400
            case .unregistered: 404
            case .senderIDMismatch: 403
            case .quotaExceeded: 429
            case .unavailable: 503
            case .internal: 500
            case .thirdPartyAuthError: 401
            }
        }

        /// The `google.rpc.Code` name of the body's `status`: an unregistered token is `NOT_FOUND`, a sender ID
        /// mismatch `PERMISSION_DENIED`, as Google's front end answers them.
        public var status: String {
            switch self {
            case .invalidArgument: "INVALID_ARGUMENT"
            case .unregistered: "NOT_FOUND"
            case .senderIDMismatch: "PERMISSION_DENIED"
            case .quotaExceeded: "RESOURCE_EXHAUSTED"
            case .unavailable: "UNAVAILABLE"
            case .internal: "INTERNAL"
            case .thirdPartyAuthError: "UNAUTHENTICATED"
            }
        }
    }

    /// One field at fault (`message.data[0].value`), as `google.rpc.BadRequest.FieldViolation`.
    public struct FieldViolation: Sendable, Hashable {
        public var field: String
        public var description: String

        public init(field: String, description: String) {
            self.field = field
            self.description = description
        }
    }

    /// `nil` for an error that carries no `FcmError` detail (a malformed body, which Google's front end refuses
    /// before FCM sees it).
    public var code: Code?
    public var httpStatus: Int
    public var status: String
    public var message: String
    public var fieldViolations: [FieldViolation]

    /// An FCM error: the code's status, and its detail.
    public init(_ code: Code, _ message: String, fieldViolations: [FieldViolation] = []) {
        self.code = code
        httpStatus = code.httpStatus
        status = code.status
        self.message = message
        self.fieldViolations = fieldViolations
    }

    /// A refusal of Google's front end that is not FCM's (authentication, permissions): no `FcmError` detail.
    public init(httpStatus: Int, status: String, message: String) {
        code = nil
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        fieldViolations = []
    }

    /// A request refused before FCM reads it (unknown fields, a value of the wrong type): 400 `INVALID_ARGUMENT`
    /// with the field, and no `FcmError` detail.
    public static func malformed(field: String, _ description: String) -> FCMError {
        var error = FCMError(.invalidArgument, description, fieldViolations: [FieldViolation(field: field, description: description)])
        error.code = nil
        return error
    }

    /// A value FCM refuses: 400 `INVALID_ARGUMENT`, "Request contains an invalid argument.", the field named.
    public static func invalid(field: String, _ description: String) -> FCMError {
        FCMError(.invalidArgument, "Request contains an invalid argument.", fieldViolations: [FieldViolation(field: field, description: description)])
    }

    public var description: String {
        ([message] + fieldViolations.map { "\($0.field): \($0.description)" }).joined(separator: "; ")
    }

    /// The `google.rpc.Status` body.
    public var json: JSONValue {
        var details: [JSONValue] = []
        if let code {
            details.append(.object(JSONObject([
                ("@type", .string("type.googleapis.com/google.firebase.fcm.v1.FcmError")), ("errorCode", .string(code.rawValue)),
            ])))
        }
        if !fieldViolations.isEmpty {
            details.append(.object(JSONObject([
                ("@type", .string("type.googleapis.com/google.rpc.BadRequest")),
                ("fieldViolations", .array(fieldViolations.map {
                    .object(JSONObject([("field", .string($0.field)), ("description", .string($0.description))]))
                })),
            ])))
        }
        return .object(JSONObject([
            ("error", .object(JSONObject([
                ("code", .integer(Int64(httpStatus))), ("message", .string(message)), ("status", .string(status)),
                ("details", .array(details)),
            ]))),
        ]))
    }
}
