public import HTTPTypes
import HuddleAPNs
public import HuddleCore
public import HuddleLocalization
public import Hummingbird
import Logging

// Every HTTP status Huddle answers with is chosen here, and only here: the provider API's by APNs reason,
// the device and admin APIs' by error type (Hummingbird answers an `HTTPResponseError` with its own
// response).

extension APNsReason {
    /// The status APNs answers this reason with.
    var status: HTTPResponse.Status {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .badPayload, .missingChannelId, .badChannelId, .channelNotRegistered,
            .cannotCreateChannelConfig, .missingPushType:
            .badRequest
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyInToken:
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
struct APIError: HTTPResponseError {
    enum Kind {
        case badRequest, unauthorized, forbidden, notFound, conflict, preconditionFailed, contentTooLarge, misdirected,
            unsupportedMediaType, tooManyRequests, serviceUnavailable
    }

    var kind: Kind
    var message: String
    /// Seconds the client should wait before it tries again (`Retry-After`).
    var retryAfter: Int?

    init(_ kind: Kind, _ message: String, retryAfter: Int? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    var status: HTTPResponse.Status { kind.status }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = Response.error(status, message)
        if let retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}

extension APIError.Kind {
    /// The status of an error of this kind, also when a page, not an error, says what went wrong.
    var status: HTTPResponse.Status {
        switch self {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .preconditionFailed: .preconditionFailed
        case .contentTooLarge: .contentTooLarge
        case .misdirected: .misdirectedRequest
        case .unsupportedMediaType: .unsupportedMediaType
        case .tooManyRequests: .tooManyRequests
        case .serviceUnavailable: .serviceUnavailable
        }
    }
}

/// Errors that mean the request itself is wrong: 400, with the error's own description.
protocol BadRequestError: HTTPResponseError, CustomStringConvertible {}

extension BadRequestError {
    public var status: HTTPResponse.Status { .badRequest }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        .error(status, description)
    }
}

/// A request body that is not what the route reads.
extension JSONReadError: BadRequestError {}

/// A Live Activity declaration the device API refuses (its key path is in the description).
extension ActivityError: BadRequestError {}

/// Categories or strings that the center refuses.
extension CenterError: BadRequestError {}

/// A localization file that cannot be read.
extension CatalogError: BadRequestError {}

/// The store's refusals and failures. A failure's detail (the database's own words) goes to the log; the
/// client gets Huddle's message alone.
extension StoreError: HTTPResponseError {
    public var status: HTTPResponse.Status {
        switch code {
        case .notFound: .notFound
        case .conflict: .conflict
        case .corrupt: .internalServerError
        case .unavailable, .full: .serviceUnavailable
        }
    }

    /// The APNs reason a push that failed in the store is answered with: a store that cannot be reached is
    /// the service being unavailable (503, which clients retry), as the device API answers it.
    var apnsReason: APNsReason {
        switch code {
        case .unavailable, .full: .serviceUnavailable
        case .notFound, .conflict, .corrupt: .internalServerError
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        if code == .corrupt || code == .unavailable {
            context.logger.error("store: \(self)", metadata: ["path": "\(request.uri.path)"])
        }
        return .error(status, message)
    }
}

/// Gives Hummingbird's own errors (no such route, a body it could not read) the `{"error": message}` shape
/// of every other error answer.
struct HTTPErrorMiddleware: RouterMiddleware {
    typealias Context = HuddleRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            return try Self.answer(error, request: request, context: context)
        }
    }

    /// The answer to an error a route threw: Hummingbird's own errors in Huddle's shape, others as they say.
    static func answer(_ error: any HTTPResponseError, request: Request, context: Context) throws -> Response {
        if let error = error as? HTTPError { return .error(error.status, error.body ?? error.status.reasonPhrase) }
        return try error.response(from: request, context: context)
    }
}
