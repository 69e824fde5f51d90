import HTTPTypes
import Hummingbird

/// Why a device's session could not store a write: what it wrote to is gone from the store.
enum DeliveryRefusal: HTTPResponseError {
    /// The device was deleted.
    case deviceGone
    /// The device has no such app (any more).
    case unknownApp
    /// A Live Activity token of another app of the device than the one written for (APNs binds an activity's
    /// tokens to their app's topic).
    case tokenOfAnotherApp
    /// A notification whose identifier breaks ``NotificationLimits`` (each API checks it first in its own words: this
    /// is the floor that none can pass under).
    case unstorableIdentifier(problem: String)

    /// The device API's answer (the provider endpoint answers with APNs reasons instead).
    var apiError: APIError {
        switch self {
        case .deviceGone: APIError(.notFound, "the device was deleted")
        case .unknownApp: APIError(.notFound, "the device has no such app")
        case .tokenOfAnotherApp: APIError(.badRequest, "this Live Activity token belongs to another app of the device")
        case .unstorableIdentifier(let problem): APIError(.badRequest, "the notification's identifier \(problem)")
        }
    }

    var status: HTTPResponse.Status { apiError.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try apiError.response(from: request, context: context)
    }
}
