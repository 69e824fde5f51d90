public import HuddleCore

/// A push ticket, one per recipient of a `push/send`, in request order: accepted with the id of its receipt, or refused
/// with Expo's error (and no id).
public enum ExpoTicket: Sendable, Hashable {
    case ok(id: String)
    case error(ExpoDeliveryError, message: String, token: String)

    public var json: JSONValue {
        switch self {
        case .ok(let id):
            .object(JSONObject([("status", "ok"), ("id", .string(id))]))
        case .error(let error, let message, let token):
            .object(JSONObject([
                ("status", "error"), ("message", .string(message)),
                ("details", .object(JSONObject([("error", .string(error.rawValue)), ("expoPushToken", .string(token))]))),
            ]))
        }
    }
}

extension DeliveryReceipt {
    /// The receipt as `push/getReceipts` answers it: `{"status": "ok"}`, or `{"status": "error", "message",
    /// "details": {"error"}}`.
    public var expoJSON: JSONValue {
        guard let error else { return .object(JSONObject([("status", "ok")])) }
        return .object(JSONObject([
            ("status", "error"), ("message", .string(message ?? "")), ("details", .object(JSONObject([("error", .string(error))]))),
        ]))
    }
}
